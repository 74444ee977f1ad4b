// Copyright 2018 Google LLC
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package main

import (
	"context"
	"testing"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/productcatalogservice/genproto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestServer(t *testing.T) {
	ctx := context.Background()
	srv := &productCatalog{}

	res, err := srv.ListProducts(ctx, &pb.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Products) != 9 {
		t.Fatalf("got %d products, want 9", len(res.Products))
	}

	got, err := srv.GetProduct(ctx, &pb.GetProductRequest{Id: "OLJCESPC7Z"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Sunglasses" {
		t.Errorf("got %q, want Sunglasses", got.Name)
	}

	_, err = srv.GetProduct(ctx, &pb.GetProductRequest{Id: "N/A"})
	if got, want := status.Code(err), codes.NotFound; got != want {
		t.Errorf("got %s, want %s", got, want)
	}

	sres, err := srv.SearchProducts(ctx, &pb.SearchProductsRequest{Query: "mug"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sres.Results) != 1 {
		t.Errorf("search for mug returned %d results, want 1", len(sres.Results))
	}
}

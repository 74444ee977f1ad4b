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

	t.Run("ListProducts", func(t *testing.T) {
		res, err := srv.ListProducts(ctx, &pb.Empty{})
		if err != nil {
			t.Fatalf("ListProducts: %v", err)
		}
		if n := len(res.GetProducts()); n != 9 {
			t.Fatalf("catalog has %d products, want 9", n)
		}
	})

	t.Run("GetProduct", func(t *testing.T) {
		for id, name := range map[string]string{"OLJCESPC7Z": "Sunglasses", "6E92ZMYYFZ": "Mug"} {
			got, err := srv.GetProduct(ctx, &pb.GetProductRequest{Id: id})
			if err != nil {
				t.Fatalf("GetProduct(%s): %v", id, err)
			}
			if got.GetName() != name {
				t.Errorf("GetProduct(%s) = %q, want %q", id, got.GetName(), name)
			}
		}
		_, err := srv.GetProduct(ctx, &pb.GetProductRequest{Id: "does-not-exist"})
		if code := status.Code(err); code != codes.NotFound {
			t.Errorf("unknown id: code %s, want NotFound", code)
		}
	})

	t.Run("SearchProducts", func(t *testing.T) {
		for query, want := range map[string]int{"mug": 1, "MUG": 1, "kitchen-sink": 0} {
			res, err := srv.SearchProducts(ctx, &pb.SearchProductsRequest{Query: query})
			if err != nil {
				t.Fatalf("SearchProducts(%q): %v", query, err)
			}
			if n := len(res.GetResults()); n != want {
				t.Errorf("SearchProducts(%q) found %d, want %d", query, n, want)
			}
		}
	})
}

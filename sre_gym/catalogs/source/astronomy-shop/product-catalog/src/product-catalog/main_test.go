// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0
package main

import (
	"context"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	pb "github.com/opentelemetry/opentelemetry-demo/src/product-catalog/genproto/oteldemo"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestGetProductNotFound(t *testing.T) {
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatal(err)
	}
	mock.ExpectQuery("SELECT (.+) FROM catalog.products WHERE id").WillReturnRows(sqlmock.NewRows(nil))
	p := &productCatalog{db: db}
	_, err = p.GetProduct(context.Background(), &pb.GetProductRequest{Id: "N/A"})
	if got := status.Code(err); got != codes.NotFound {
		t.Fatalf("got %v, want NotFound", got)
	}
}

func TestListProductsOrdered(t *testing.T) {
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatal(err)
	}
	mock.ExpectQuery("SELECT (.+) FROM catalog.products ORDER BY id").WillReturnRows(sqlmock.NewRows(nil))
	p := &productCatalog{db: db}
	if _, err := p.ListProducts(context.Background(), &pb.Empty{}); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"context"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	pb "github.com/opentelemetry/opentelemetry-demo/src/product-catalog/genproto/oteldemo"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var columns = []string{"id", "name", "description", "picture", "price_currency_code", "price_units", "price_nanos", "categories"}

func newCatalog(t *testing.T) (*productCatalog, sqlmock.Sqlmock) {
	t.Helper()
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatalf("sqlmock: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return &productCatalog{db: db}, mock
}

func TestGetProductNotFound(t *testing.T) {
	catalog, mock := newCatalog(t)
	mock.ExpectQuery("FROM catalog.products WHERE id").WithArgs("NOPE").WillReturnRows(sqlmock.NewRows(columns))

	_, err := catalog.GetProduct(context.Background(), &pb.GetProductRequest{Id: "NOPE"})
	if code := status.Code(err); code != codes.NotFound {
		t.Fatalf("status %v, want NotFound", code)
	}
}

func TestGetProductScansPrice(t *testing.T) {
	catalog, mock := newCatalog(t)
	rows := sqlmock.NewRows(columns).
		AddRow("66VCHSJNUP", "Solar Filter", "A filter for the sun", "SolarFilter.jpg", "USD", 69, 950000000, "{accessories,telescopes}")
	mock.ExpectQuery("FROM catalog.products WHERE id").WithArgs("66VCHSJNUP").WillReturnRows(rows)

	got, err := catalog.GetProduct(context.Background(), &pb.GetProductRequest{Id: "66VCHSJNUP"})
	if err != nil {
		t.Fatal(err)
	}
	if got.PriceUsd.Units != 69 || got.PriceUsd.Nanos != 950000000 {
		t.Errorf("price %d.%09d, want 69.950000000", got.PriceUsd.Units, got.PriceUsd.Nanos)
	}
	if len(got.Categories) != 2 {
		t.Errorf("categories %v, want two", got.Categories)
	}
}

func TestListProductsOrdered(t *testing.T) {
	catalog, mock := newCatalog(t)
	mock.ExpectQuery("FROM catalog.products ORDER BY id").WillReturnRows(sqlmock.NewRows(columns))

	if _, err := catalog.ListProducts(context.Background(), &pb.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Error(err)
	}
}

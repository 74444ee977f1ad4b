// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0
package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lib/pq"
	"github.com/open-feature/go-sdk/openfeature"
	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/opentelemetry/opentelemetry-demo/src/product-catalog/genproto/oteldemo"
)

type productCatalog struct {
	db *sql.DB
	pb.UnimplementedProductCatalogServiceServer
}

func mustOpenDB() *sql.DB {
	connStr := os.Getenv("DB_CONNECTION_STRING")
	if connStr == "" {
		logger.Error("DB_CONNECTION_STRING is not set")
		os.Exit(1)
	}
	db, err := sql.Open("postgres", connStr+" sslmode=disable")
	if err != nil {
		logger.Error(fmt.Sprintf("failed to open database: %v", err))
		os.Exit(1)
	}
	db.SetMaxOpenConns(10)
	db.SetMaxIdleConns(5)
	db.SetConnMaxLifetime(5 * time.Minute)
	return db
}

const productColumns = "id, name, description, picture, price_currency_code, price_units, price_nanos, categories"

func scanProduct(row interface{ Scan(...any) error }) (*pb.Product, error) {
	p := &pb.Product{PriceUsd: &pb.Money{}}
	var categories []string
	err := row.Scan(&p.Id, &p.Name, &p.Description, &p.Picture,
		&p.PriceUsd.CurrencyCode, &p.PriceUsd.Units, &p.PriceUsd.Nanos, pq.Array(&categories))
	if err != nil {
		return nil, err
	}
	p.Categories = categories
	return p, nil
}

func (p *productCatalog) ListProducts(ctx context.Context, req *pb.Empty) (*pb.ListProductsResponse, error) {
	span := trace.SpanFromContext(ctx)

	rows, err := p.db.QueryContext(ctx, "SELECT "+productColumns+" FROM catalog.products ORDER BY id")
	if err != nil {
		return nil, status.Errorf(codes.Internal, "failed to query products: %v", err)
	}
	defer rows.Close()

	var products []*pb.Product
	for rows.Next() {
		product, err := scanProduct(rows)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "failed to scan product: %v", err)
		}
		products = append(products, product)
	}

	span.SetAttributes(
		attribute.Int("app.products.count", len(products)),
	)
	return &pb.ListProductsResponse{Products: products}, nil
}

func (p *productCatalog) GetProduct(ctx context.Context, req *pb.GetProductRequest) (*pb.Product, error) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(
		attribute.String("app.product.id", req.Id),
	)

	// GetProduct will fail on a specific product when feature flag is enabled
	if p.checkProductFailure(ctx, req.Id) {
		msg := "Error: Product Catalog Fail Feature Flag Enabled"
		span.SetStatus(otelcodes.Error, msg)
		span.AddEvent(msg)
		return nil, status.Errorf(codes.Internal, msg)
	}

	row := p.db.QueryRowContext(ctx, "SELECT "+productColumns+" FROM catalog.products WHERE id = $1", req.Id)
	found, err := scanProduct(row)
	if err == sql.ErrNoRows {
		msg := fmt.Sprintf("Product Not Found: %s", req.Id)
		span.SetStatus(otelcodes.Error, msg)
		span.AddEvent(msg)
		return nil, status.Errorf(codes.NotFound, msg)
	}
	if err != nil {
		return nil, status.Errorf(codes.Internal, "failed to query product %s: %v", req.Id, err)
	}

	msg := fmt.Sprintf("Product Found - ID: %s, Name: %s", req.Id, found.Name)
	span.AddEvent(msg)
	span.SetAttributes(
		attribute.String("app.product.name", found.Name),
	)
	return found, nil
}

func (p *productCatalog) SearchProducts(ctx context.Context, req *pb.SearchProductsRequest) (*pb.SearchProductsResponse, error) {
	span := trace.SpanFromContext(ctx)

	query := "%" + strings.ToLower(req.Query) + "%"
	rows, err := p.db.QueryContext(ctx,
		"SELECT "+productColumns+" FROM catalog.products WHERE lower(name) LIKE $1 OR lower(description) LIKE $1", query)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "failed to search products: %v", err)
	}
	defer rows.Close()

	var result []*pb.Product
	for rows.Next() {
		product, err := scanProduct(rows)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "failed to scan product: %v", err)
		}
		result = append(result, product)
	}
	span.SetAttributes(
		attribute.Int("app.products_search.count", len(result)),
	)
	return &pb.SearchProductsResponse{Results: result}, nil
}

func (p *productCatalog) checkProductFailure(ctx context.Context, id string) bool {
	if id != "OLJCESPC7Z" {
		return false
	}

	client := openfeature.NewClient("productCatalog")
	failureEnabled, _ := client.BooleanValue(
		ctx, "productCatalogFailure", false, openfeature.EvaluationContext{},
	)
	return failureEnabled
}

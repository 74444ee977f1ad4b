// Product catalog: serves oteldemo.ProductCatalogService (list, get, search) from the
// catalog.products table of the shop's PostgreSQL database.
package main

import (
	"context"
	"database/sql"
	"errors"
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

// Column order matters: scanProduct reads them positionally.
const productColumns = "id, name, description, picture, price_currency_code, price_units, price_nanos, categories"

const (
	listQuery   = "SELECT " + productColumns + " FROM catalog.products ORDER BY id"
	getQuery    = "SELECT " + productColumns + " FROM catalog.products WHERE id = $1"
	searchQuery = "SELECT " + productColumns + " FROM catalog.products WHERE lower(name) LIKE $1 OR lower(description) LIKE $1"
)

// Connection pool of one catalog replica.
const (
	maxOpenConns    = 10
	maxIdleConns    = 5
	connMaxLifetime = 5 * time.Minute
)

// The productCatalogFailure flag only breaks this product (the Explorascope telescope).
const failingProductID = "OLJCESPC7Z"

type productCatalog struct {
	pb.UnimplementedProductCatalogServiceServer
	db *sql.DB
}

func mustOpenDB() *sql.DB {
	dsn, ok := os.LookupEnv("DB_CONNECTION_STRING")
	if !ok || dsn == "" {
		logger.Error("DB_CONNECTION_STRING is not set")
		os.Exit(1)
	}
	db, err := sql.Open("postgres", dsn+" sslmode=disable")
	if err != nil {
		logger.Error(fmt.Sprintf("cannot open the catalog database: %v", err))
		os.Exit(1)
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxLifetime(connMaxLifetime)
	return db
}

// rowScanner is satisfied by both *sql.Row and *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

func scanProduct(row rowScanner) (*pb.Product, error) {
	var (
		product    pb.Product
		price      pb.Money
		categories pq.StringArray
	)
	err := row.Scan(&product.Id, &product.Name, &product.Description, &product.Picture,
		&price.CurrencyCode, &price.Units, &price.Nanos, &categories)
	if err != nil {
		return nil, err
	}
	product.PriceUsd = &price
	product.Categories = categories
	return &product, nil
}

func collectProducts(rows *sql.Rows) ([]*pb.Product, error) {
	defer rows.Close()
	var out []*pb.Product
	for rows.Next() {
		product, err := scanProduct(rows)
		if err != nil {
			return nil, fmt.Errorf("failed to scan product: %w", err)
		}
		out = append(out, product)
	}
	return out, rows.Err()
}

// failSpan marks the span as failed and returns the matching gRPC error.
func failSpan(span trace.Span, code codes.Code, msg string) error {
	span.SetStatus(otelcodes.Error, msg)
	span.AddEvent(msg)
	return status.Error(code, msg)
}

func (p *productCatalog) ListProducts(ctx context.Context, _ *pb.Empty) (*pb.ListProductsResponse, error) {
	rows, err := p.db.QueryContext(ctx, listQuery)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "failed to query products: %v", err)
	}
	products, err := collectProducts(rows)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}

	trace.SpanFromContext(ctx).SetAttributes(attribute.Int("app.products.count", len(products)))
	return &pb.ListProductsResponse{Products: products}, nil
}

func (p *productCatalog) GetProduct(ctx context.Context, req *pb.GetProductRequest) (*pb.Product, error) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("app.product.id", req.Id))

	if p.checkProductFailure(ctx, req.Id) {
		return nil, failSpan(span, codes.Internal, "Error: Product Catalog Fail Feature Flag Enabled")
	}

	product, err := scanProduct(p.db.QueryRowContext(ctx, getQuery, req.Id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, failSpan(span, codes.NotFound, fmt.Sprintf("Product Not Found: %s", req.Id))
	case err != nil:
		return nil, status.Errorf(codes.Internal, "failed to query product %s: %v", req.Id, err)
	}

	span.AddEvent(fmt.Sprintf("Product Found - ID: %s, Name: %s", req.Id, product.Name))
	span.SetAttributes(attribute.String("app.product.name", product.Name))
	return product, nil
}

func (p *productCatalog) SearchProducts(ctx context.Context, req *pb.SearchProductsRequest) (*pb.SearchProductsResponse, error) {
	pattern := "%" + strings.ToLower(req.Query) + "%"
	rows, err := p.db.QueryContext(ctx, searchQuery, pattern)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "failed to search products: %v", err)
	}
	results, err := collectProducts(rows)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}

	trace.SpanFromContext(ctx).SetAttributes(attribute.Int("app.products_search.count", len(results)))
	return &pb.SearchProductsResponse{Results: results}, nil
}

// checkProductFailure reports whether the productCatalogFailure flag is on for this product.
// Flag evaluation errors count as "off".
func (p *productCatalog) checkProductFailure(ctx context.Context, id string) bool {
	if id != failingProductID {
		return false
	}
	client := openfeature.NewClient("productCatalog")
	enabled, err := client.BooleanValue(ctx, "productCatalogFailure", false, openfeature.EvaluationContext{})
	return err == nil && enabled
}

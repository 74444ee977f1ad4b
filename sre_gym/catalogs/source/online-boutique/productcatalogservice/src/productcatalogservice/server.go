// ProductCatalogService: serves the products of products.json over gRPC.
// The file is read once and kept in memory; SIGUSR1 switches to re-reading it
// on every request (to try catalog edits live) and SIGUSR2 switches back.

package main

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/productcatalogservice/genproto"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

const catalogFile = "products.json"

var (
	mu            sync.Mutex
	reloadCatalog bool          // re-read catalogFile on every request (SIGUSR1 / SIGUSR2)
	extraLatency  time.Duration // EXTRA_LATENCY: added to every catalog RPC, for fault drills
)

type productCatalog struct {
	pb.UnimplementedProductCatalogServiceServer
	catalog pb.ListProductsResponse
}

func init() {
	extraLatency = latencyFromEnv()
	watchReloadSignals()
}

// latencyFromEnv parses EXTRA_LATENCY ("250ms", "1s"); a bad value stops the
// process rather than silently running without the requested delay.
func latencyFromEnv() time.Duration {
	raw := os.Getenv("EXTRA_LATENCY")
	if raw == "" {
		return 0
	}
	d, err := time.ParseDuration(raw)
	if err != nil {
		log.Fatalf("EXTRA_LATENCY=%q is not a duration: %v", raw, err)
	}
	log.Infof("extra latency enabled (duration: %v)", d)
	return d
}

func watchReloadSignals() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		for sig := range sigs {
			on := sig == syscall.SIGUSR1
			mu.Lock()
			reloadCatalog = on
			mu.Unlock()
			log.Infof("reload catalog on every request: %v", on)
		}
	}()
}

// loadCatalog decodes catalogFile into catalog.
func loadCatalog(catalog *pb.ListProductsResponse) error {
	raw, err := os.ReadFile(catalogFile)
	if err != nil {
		log.Warnf("could not read %s: %v", catalogFile, err)
		return err
	}
	if err := protojson.Unmarshal(raw, catalog); err != nil {
		log.Warnf("could not decode %s: %v", catalogFile, err)
		return err
	}
	log.Info("successfully parsed product catalog json")
	return nil
}

// parseCatalog returns the cached products, loading them on first use (or on
// every call while reloadCatalog is set). On a load error it returns nothing.
func (p *productCatalog) parseCatalog() []*pb.Product {
	mu.Lock()
	defer mu.Unlock()
	if reloadCatalog || len(p.catalog.Products) == 0 {
		if err := loadCatalog(&p.catalog); err != nil {
			return nil
		}
	}
	return p.catalog.Products
}

func (p *productCatalog) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

func (p *productCatalog) Watch(req *healthpb.HealthCheckRequest, ws healthpb.Health_WatchServer) error {
	return status.Error(codes.Unimplemented, "health watch is not supported")
}

func (p *productCatalog) ListProducts(ctx context.Context, _ *pb.Empty) (*pb.ListProductsResponse, error) {
	time.Sleep(extraLatency)
	return &pb.ListProductsResponse{Products: p.parseCatalog()}, nil
}

func (p *productCatalog) GetProduct(ctx context.Context, req *pb.GetProductRequest) (*pb.Product, error) {
	time.Sleep(extraLatency)
	for _, product := range p.parseCatalog() {
		if product.GetId() == req.GetId() {
			return product, nil
		}
	}
	return nil, status.Errorf(codes.NotFound, "no product with ID %s", req.GetId())
}

// SearchProducts matches the query, case-insensitively, against product names
// and descriptions.
func (p *productCatalog) SearchProducts(ctx context.Context, req *pb.SearchProductsRequest) (*pb.SearchProductsResponse, error) {
	time.Sleep(extraLatency)
	query := strings.ToLower(strings.TrimSpace(req.GetQuery()))
	var results []*pb.Product
	for _, product := range p.parseCatalog() {
		if strings.Contains(strings.ToLower(product.GetName()), query) ||
			strings.Contains(strings.ToLower(product.GetDescription()), query) {
			results = append(results, product)
		}
	}
	return &pb.SearchProductsResponse{Results: results}, nil
}

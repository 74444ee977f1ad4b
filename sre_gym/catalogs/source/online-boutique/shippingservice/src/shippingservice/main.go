// ShippingService: quotes a flat shipping rate and hands out mock tracking ids.
// Nothing is shipped; the service exists so that checkout has a shipping step.

package main

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"os"
	"strings"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/shippingservice/genproto"
)

const (
	defaultPort = "50051"
	// every order ships for the same price, whatever its size
	flatRateUSD = 8.99
)

var (
	log = newLogger()
	rng = rand.New(rand.NewSource(time.Now().UnixNano()))
)

func newLogger() *logrus.Logger {
	l := logrus.New()
	l.Out = os.Stdout
	l.Level = logrus.DebugLevel
	l.Formatter = &logrus.JSONFormatter{
		FieldMap: logrus.FieldMap{
			logrus.FieldKeyTime:  "timestamp",
			logrus.FieldKeyLevel: "severity",
			logrus.FieldKeyMsg:   "message",
		},
		TimestampFormat: time.RFC3339Nano,
	}
	return l
}

func main() {
	port := defaultPort
	if p, ok := os.LookupEnv("PORT"); ok && p != "" {
		port = p
	}
	lis, err := net.Listen("tcp", ":"+port)
	if err != nil {
		log.Fatalf("failed to listen on port %s: %v", port, err)
	}

	srv := grpc.NewServer()
	pb.RegisterShippingServiceServer(srv, &server{})
	healthpb.RegisterHealthServer(srv, health.NewServer())
	reflection.Register(srv) // lets grpcurl list and call the service
	log.Infof("Shipping Service listening on port %s", port)
	if err := srv.Serve(lis); err != nil {
		log.Fatalf("failed to serve: %v", err)
	}
}

// server implements hipstershop.ShippingService.
type server struct {
	pb.UnimplementedShippingServiceServer
}

// GetQuote returns the cost of shipping the requested items, in USD.
func (s *server) GetQuote(ctx context.Context, in *pb.GetQuoteRequest) (*pb.GetQuoteResponse, error) {
	log.Info("[GetQuote] received request")
	defer log.Info("[GetQuote] completed request")

	quote := CreateQuoteFromFloat(flatRateUSD)
	return &pb.GetQuoteResponse{CostUsd: quote.Money()}, nil
}

// ShipOrder pretends to ship the order to in.Address and returns a tracking id.
func (s *server) ShipOrder(ctx context.Context, in *pb.ShipOrderRequest) (*pb.ShipOrderResponse, error) {
	log.Info("[ShipOrder] received request")
	defer log.Info("[ShipOrder] completed request")

	addr := in.GetAddress()
	if addr == nil {
		return nil, status.Errorf(codes.InvalidArgument, "missing shipping address")
	}
	baseAddress := strings.Join([]string{addr.GetStreetAddress(), addr.GetCity(), addr.GetState()}, ", ")
	id := CreateTrackingId(baseAddress)
	return &pb.ShipOrderResponse{TrackingId: id}, nil
}

// CreateTrackingId makes a mock tracking id such as "QX-20417-103958271": two
// capital letters, the salt's length followed by three random digits, and half
// the salt's length followed by seven random digits.
func CreateTrackingId(salt string) string {
	return fmt.Sprintf("%c%c-%d%s-%d%s",
		randomCapital(), randomCapital(),
		len(salt), randomDigits(3),
		len(salt)/2, randomDigits(7))
}

func randomCapital() rune {
	return rune('A' + rng.Intn(26))
}

func randomDigits(n int) string {
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < n; i++ {
		b.WriteByte(byte('0' + rng.Intn(10)))
	}
	return b.String()
}

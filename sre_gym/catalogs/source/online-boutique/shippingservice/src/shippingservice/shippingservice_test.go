package main

import (
	"context"
	"regexp"
	"testing"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/shippingservice/genproto"
)

func testAddress() *pb.Address {
	return &pb.Address{
		StreetAddress: "1600 Amphitheatre Parkway",
		City:          "Mountain View",
		State:         "CA",
		Country:       "United States",
		ZipCode:       94043,
	}
}

func TestGetQuote(t *testing.T) {
	req := &pb.GetQuoteRequest{
		Address: testAddress(),
		Items: []*pb.CartItem{
			{ProductId: "OLJCESPC7Z", Quantity: 1},
			{ProductId: "66VCHSJNUP", Quantity: 3},
		},
	}
	res, err := (&server{}).GetQuote(context.Background(), req)
	if err != nil {
		t.Fatalf("GetQuote: %v", err)
	}
	cost := res.GetCostUsd()
	if cost.GetCurrencyCode() != "USD" || cost.GetUnits() != 8 || cost.GetNanos() != 990000000 {
		t.Errorf("GetQuote = %s %d.%09d, want USD 8.990000000", cost.GetCurrencyCode(), cost.GetUnits(), cost.GetNanos())
	}
}

var trackingIDPattern = regexp.MustCompile(`^[A-Z]{2}-\d+-\d+$`)

func TestShipOrder(t *testing.T) {
	req := &pb.ShipOrderRequest{
		Address: testAddress(),
		Items:   []*pb.CartItem{{ProductId: "OLJCESPC7Z", Quantity: 1}},
	}
	res, err := (&server{}).ShipOrder(context.Background(), req)
	if err != nil {
		t.Fatalf("ShipOrder: %v", err)
	}
	if id := res.GetTrackingId(); !trackingIDPattern.MatchString(id) {
		t.Errorf("tracking id %q does not look like XX-<digits>-<digits>", id)
	}

	if _, err := (&server{}).ShipOrder(context.Background(), &pb.ShipOrderRequest{}); err == nil {
		t.Error("ShipOrder without an address succeeded")
	}
}

func TestCreateQuoteFromFloat(t *testing.T) {
	for in, want := range map[float64]Quote{
		8.99: {Dollars: 8, Cents: 99},
		0.5:  {Dollars: 0, Cents: 50},
		12:   {Dollars: 12, Cents: 0},
	} {
		if got := CreateQuoteFromFloat(in); got != want {
			t.Errorf("CreateQuoteFromFloat(%v) = %v, want %v", in, got, want)
		}
	}
	if q := CreateQuoteFromCount(0); q != (Quote{}) {
		t.Errorf("empty shipment quoted %v", q)
	}
}

package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/frontend/genproto"
)

func sampleCart() []*pb.CartItem {
	return []*pb.CartItem{
		{ProductId: "OLJCESPC7Z", Quantity: 2},
		{ProductId: "66VCHSJNUP", Quantity: 3},
		{ProductId: "1YMWWN1N4O", Quantity: 1},
	}
}

func TestCartSize(t *testing.T) {
	cases := map[string]struct {
		cart []*pb.CartItem
		want int
	}{
		"empty":       {nil, 0},
		"three lines": {sampleCart(), 6},
	}
	for name, tc := range cases {
		if got := cartSize(tc.cart); got != tc.want {
			t.Errorf("%s: cartSize = %d, want %d", name, got, tc.want)
		}
	}
}

func TestCartIDs(t *testing.T) {
	got := cartIDs(sampleCart())
	want := []string{"OLJCESPC7Z", "66VCHSJNUP", "1YMWWN1N4O"}
	if len(got) != len(want) {
		t.Fatalf("cartIDs returned %d ids, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cartIDs[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestCurrentCurrencyDefaults(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	if got := currentCurrency(r); got != defaultCurrency {
		t.Errorf("no cookie: currency = %q, want %q", got, defaultCurrency)
	}
	r.AddCookie(&http.Cookie{Name: cookieCurrency, Value: "JPY"})
	if got := currentCurrency(r); got != "JPY" {
		t.Errorf("cookie JPY: currency = %q", got)
	}
}

func TestWhitelistedCurrencies(t *testing.T) {
	for _, code := range []string{"USD", "EUR", "CAD", "JPY", "GBP", "TRY"} {
		if !whitelistedCurrencies[code] {
			t.Errorf("%s missing from the currency picker", code)
		}
	}
}

func TestAdRequestTimeout(t *testing.T) {
	if adRequestTimeout.Milliseconds() != 100 {
		t.Errorf("adRequestTimeout = %v, want 100ms", adRequestTimeout)
	}
}

package money

import (
	"testing"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/checkoutservice/genproto"
)

func usd(units int64, nanos int32) pb.Money {
	return pb.Money{Units: units, Nanos: nanos, CurrencyCode: "USD"}
}

func TestIsValid(t *testing.T) {
	cases := map[string]struct {
		m    pb.Money
		want bool
	}{
		"zero":                 {usd(0, 0), true},
		"both negative":        {usd(-42, -999999999), true},
		"nanos only":           {usd(0, -5), true},
		"opposite signs":       {usd(-42, 999999999), false},
		"nanos out of range":   {usd(1, 1000000000), false},
		"negative nanos range": {usd(-1, -1000000000), false},
	}
	for name, c := range cases {
		if got := IsValid(c.m); got != c.want {
			t.Errorf("%s: IsValid(%v) = %v, want %v", name, c.m, got, c.want)
		}
	}
}

func TestSum(t *testing.T) {
	cases := []struct {
		l, r, want pb.Money
	}{
		{usd(1, 999999999), usd(1, 1), usd(3, 0)},
		{usd(2, 0), usd(-1, -500000000), usd(0, 500000000)},
		{usd(-3, -600000000), usd(-1, -600000000), usd(-5, -200000000)},
		{usd(0, 0), usd(0, 0), usd(0, 0)},
	}
	for _, c := range cases {
		got, err := Sum(c.l, c.r)
		if err != nil {
			t.Fatalf("Sum(%v, %v): %v", c.l, c.r, err)
		}
		if got.GetUnits() != c.want.GetUnits() || got.GetNanos() != c.want.GetNanos() {
			t.Errorf("Sum(%v, %v) = %v, want %v", c.l, c.r, got, c.want)
		}
	}
}

func TestSumRejects(t *testing.T) {
	eur := pb.Money{Units: 1, CurrencyCode: "EUR"}
	if _, err := Sum(usd(1, 0), eur); err != ErrMismatchingCurrency {
		t.Errorf("mixed currencies: got %v, want ErrMismatchingCurrency", err)
	}
	if _, err := Sum(usd(1, -1), usd(1, 0)); err != ErrInvalidValue {
		t.Errorf("invalid operand: got %v, want ErrInvalidValue", err)
	}
}

func TestMultiplySlow(t *testing.T) {
	got := MultiplySlow(usd(3, 500000000), 3)
	if got.GetUnits() != 10 || got.GetNanos() != 500000000 {
		t.Fatalf("MultiplySlow(3.5, 3) = %v, want 10.5", got)
	}
	if one := MultiplySlow(usd(7, 250000000), 1); one.GetUnits() != 7 || one.GetNanos() != 250000000 {
		t.Errorf("MultiplySlow(x, 1) = %v, want x", one)
	}
}

package money

import (
	"errors"
	"testing"

	pb "github.com/open-telemetry/opentelemetry-demo/src/checkout/genproto/oteldemo"
)

func usd(units int64, nanos int32) *pb.Money {
	return &pb.Money{CurrencyCode: "USD", Units: units, Nanos: nanos}
}

func TestSum(t *testing.T) {
	cases := []struct {
		name      string
		l, r      *pb.Money
		wantUnits int64
		wantNanos int32
	}{
		{"carry into units", usd(1, 999_999_999), usd(1, 1), 3, 0},
		{"no carry", usd(2, 250_000_000), usd(0, 500_000_000), 2, 750_000_000},
		{"negative result", usd(-1, -500_000_000), usd(0, 700_000_000), 0, -800_000_000},
		{"borrow from units", usd(3, 0), usd(-1, -250_000_000), 1, 750_000_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Sum(tc.l, tc.r)
			if err != nil {
				t.Fatalf("Sum: unexpected error %v", err)
			}
			if got.GetUnits() != tc.wantUnits || got.GetNanos() != tc.wantNanos {
				t.Fatalf("Sum = %d.%09d, want %d.%09d", got.GetUnits(), got.GetNanos(), tc.wantUnits, tc.wantNanos)
			}
		})
	}

	eur := &pb.Money{CurrencyCode: "EUR", Units: 1}
	if _, err := Sum(usd(1, 0), eur); !errors.Is(err, ErrMismatchingCurrency) {
		t.Fatalf("USD+EUR: got %v, want ErrMismatchingCurrency", err)
	}
	if _, err := Sum(usd(1, -5), usd(1, 0)); !errors.Is(err, ErrInvalidValue) {
		t.Fatalf("invalid operand: got %v, want ErrInvalidValue", err)
	}
}

func TestMultiplySlow(t *testing.T) {
	got := MultiplySlow(usd(3, 500_000_000), 3)
	if got.GetUnits() != 10 || got.GetNanos() != 500_000_000 {
		t.Fatalf("MultiplySlow = %d.%09d, want 10.500000000", got.GetUnits(), got.GetNanos())
	}
	if one := MultiplySlow(usd(7, 0), 1); one.GetUnits() != 7 {
		t.Fatalf("MultiplySlow by 1 = %v", one)
	}
}

// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0
package money

import (
	"testing"

	pb "github.com/open-telemetry/opentelemetry-demo/src/checkout/genproto/oteldemo"
)

func mmc(u int64, n int32, c string) *pb.Money { return &pb.Money{Units: u, Nanos: n, CurrencyCode: c} }

func TestSum(t *testing.T) {
	got, err := Sum(mmc(1, 999999999, "USD"), mmc(1, 1, "USD"))
	if err != nil || got.GetUnits() != 3 || got.GetNanos() != 0 {
		t.Fatalf("Sum() = %v, %v", got, err)
	}
	if _, err := Sum(mmc(1, 0, "USD"), mmc(1, 0, "EUR")); err != ErrMismatchingCurrency {
		t.Fatalf("mismatching currencies: %v", err)
	}
}

func TestMultiplySlow(t *testing.T) {
	if got := MultiplySlow(mmc(3, 500000000, "USD"), 3); got.GetUnits() != 10 || got.GetNanos() != 500000000 {
		t.Fatalf("MultiplySlow() = %v", got)
	}
}

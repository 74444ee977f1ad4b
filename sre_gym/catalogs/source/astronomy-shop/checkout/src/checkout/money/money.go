// Package money does arithmetic on pb.Money values: whole units plus nanos
// (10^-9 units) that share the sign of the units.
package money

import (
	"errors"

	pb "github.com/open-telemetry/opentelemetry-demo/src/checkout/genproto/oteldemo"
)

const (
	nanosPerUnit = 1_000_000_000
	maxNanos     = nanosPerUnit - 1
)

var (
	ErrInvalidValue        = errors.New("one of the specified money values is invalid")
	ErrMismatchingCurrency = errors.New("mismatching currency codes")
)

// IsValid reports whether m has nanos within ±999,999,999 and units and nanos
// that do not point in opposite directions.
func IsValid(m *pb.Money) bool {
	units, nanos := m.GetUnits(), m.GetNanos()
	if nanos < -maxNanos || nanos > maxNanos {
		return false
	}
	opposite := (units > 0 && nanos < 0) || (units < 0 && nanos > 0)
	return !opposite
}

// Sum returns l+r. Both values must be valid and carry the same currency code.
func Sum(l, r *pb.Money) (*pb.Money, error) {
	if !IsValid(l) || !IsValid(r) {
		return &pb.Money{}, ErrInvalidValue
	}
	if l.GetCurrencyCode() != r.GetCurrencyCode() {
		return &pb.Money{}, ErrMismatchingCurrency
	}

	units := l.GetUnits() + r.GetUnits()
	nanos := int64(l.GetNanos()) + int64(r.GetNanos())

	// carry whole units out of the nanos, then make both parts agree in sign
	units += nanos / nanosPerUnit
	nanos %= nanosPerUnit
	switch {
	case units > 0 && nanos < 0:
		units--
		nanos += nanosPerUnit
	case units < 0 && nanos > 0:
		units++
		nanos -= nanosPerUnit
	}

	return &pb.Money{
		CurrencyCode: l.GetCurrencyCode(),
		Units:        units,
		Nanos:        int32(nanos),
	}, nil
}

// MultiplySlow returns m*n by repeated addition (n of 0 or 1 returns m).
func MultiplySlow(m *pb.Money, n uint32) *pb.Money {
	product := m
	for i := uint32(1); i < n; i++ {
		product = Must(Sum(product, m))
	}
	return product
}

// Must unwraps a (value, error) pair, panicking on error: total := Must(Sum(a, b)).
func Must(v *pb.Money, err error) *pb.Money {
	if err != nil {
		panic(err)
	}
	return v
}

// Package money does arithmetic on pb.Money values (whole units plus nanos of one currency).
package money

import (
	"errors"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/checkoutservice/genproto"
)

// nanosPerUnit is how many nanos make one whole unit; |nanos| must stay below it.
const nanosPerUnit = 1000000000

var (
	ErrInvalidValue        = errors.New("one of the specified money values is invalid")
	ErrMismatchingCurrency = errors.New("mismatching currency codes")
)

// IsValid reports whether nanos are in range and do not carry the opposite sign of units.
func IsValid(m pb.Money) bool {
	units, nanos := m.GetUnits(), m.GetNanos()
	if nanos <= -nanosPerUnit || nanos >= nanosPerUnit {
		return false
	}
	mixedSigns := (units > 0 && nanos < 0) || (units < 0 && nanos > 0)
	return !mixedSigns
}

// IsZero reports whether m is exactly zero.
func IsZero(m pb.Money) bool {
	return m.GetUnits() == 0 && m.GetNanos() == 0
}

// AreSameCurrency reports whether both values name the same, non-empty currency.
func AreSameCurrency(l, r pb.Money) bool {
	code := l.GetCurrencyCode()
	return code != "" && code == r.GetCurrencyCode()
}

// Sum returns l+r. Both must be valid and have the same currency code (two empty codes are fine).
func Sum(l, r pb.Money) (pb.Money, error) {
	if !IsValid(l) || !IsValid(r) {
		return pb.Money{}, ErrInvalidValue
	}
	if l.GetCurrencyCode() != r.GetCurrencyCode() {
		return pb.Money{}, ErrMismatchingCurrency
	}

	units := l.GetUnits() + r.GetUnits()
	nanos := int64(l.GetNanos()) + int64(r.GetNanos())

	// move whole units out of the nanos part
	units += nanos / nanosPerUnit
	nanos %= nanosPerUnit

	// then borrow one unit if the two parts ended up with opposite signs
	switch {
	case units > 0 && nanos < 0:
		units--
		nanos += nanosPerUnit
	case units < 0 && nanos > 0:
		units++
		nanos -= nanosPerUnit
	}

	return pb.Money{Units: units, Nanos: int32(nanos), CurrencyCode: l.GetCurrencyCode()}, nil
}

// MultiplySlow returns m*n by adding m to itself, so every carry goes through Sum.
// n of 0 or 1 returns m unchanged.
func MultiplySlow(m pb.Money, n uint32) pb.Money {
	product := m
	for i := uint32(1); i < n; i++ {
		product = Must(Sum(product, m))
	}
	return product
}

// Must unwraps the result of Sum, panicking on error: for values already known to be valid.
func Must(v pb.Money, err error) pb.Money {
	if err != nil {
		panic(err)
	}
	return v
}

// Quote arithmetic: prices are kept as whole dollars plus cents so that they
// convert exactly into the Money message (units + nanos).

package main

import (
	"fmt"
	"math"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/shippingservice/genproto"
)

// Quote is an amount in USD.
type Quote struct {
	Dollars uint32
	Cents   uint32
}

func (q Quote) String() string {
	return fmt.Sprintf("$%d.%02d", q.Dollars, q.Cents)
}

// Money converts the quote into a USD Money message (one cent is 10^7 nanos).
func (q Quote) Money() *pb.Money {
	return &pb.Money{
		CurrencyCode: "USD",
		Units:        int64(q.Dollars),
		Nanos:        int32(q.Cents) * 10000000,
	}
}

// CreateQuoteFromCount prices a shipment of count items.
func CreateQuoteFromCount(count int) Quote {
	return CreateQuoteFromFloat(quoteByCountFloat(count))
}

// CreateQuoteFromFloat splits a dollar amount into dollars and cents, rounding
// to the nearest cent (8.99 is 8.98999... as a float64).
func CreateQuoteFromFloat(value float64) Quote {
	whole, frac := math.Modf(value)
	return Quote{
		Dollars: uint32(whole),
		Cents:   uint32(math.Round(frac * 100)),
	}
}

// quoteByCountFloat is the size-based price: a base fee plus a per-item fee
// that shrinks for larger orders. An empty shipment costs nothing.
func quoteByCountFloat(count int) float64 {
	if count <= 0 {
		return 0
	}
	const baseFee, perItem = 4.99, 1.50
	n := float64(count)
	return baseFee + perItem*n*math.Pow(0.95, n-1)
}

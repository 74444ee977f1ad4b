// Thin wrappers around the gRPC clients of the backend services. Handlers call
// these instead of the generated clients so that timeouts and filtering live in
// one place.

package main

import (
	"context"
	"time"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/frontend/genproto"

	"github.com/pkg/errors"
)

const (
	// skip the currency service when the price is already in the wanted currency
	avoidNoopCurrencyConversionRPC = false
	// ads are a soft dependency: never hold a page back for them
	adRequestTimeout = 100 * time.Millisecond
	// the recommendation strip has room for this many cards
	maxRecommendations = 4
)

// whitelistedCurrencies are the currencies offered in the currency picker, out
// of everything the currency service can convert.
var whitelistedCurrencies = map[string]bool{
	"USD": true,
	"EUR": true,
	"CAD": true,
	"JPY": true,
	"GBP": true,
	"TRY": true,
}

func (fe *frontendServer) getCurrencies(ctx context.Context) ([]string, error) {
	resp, err := pb.NewCurrencyServiceClient(fe.currencySvcConn).GetSupportedCurrencies(ctx, &pb.Empty{})
	if err != nil {
		return nil, err
	}
	offered := make([]string, 0, len(whitelistedCurrencies))
	for _, code := range resp.GetCurrencyCodes() {
		if whitelistedCurrencies[code] {
			offered = append(offered, code)
		}
	}
	return offered, nil
}

func (fe *frontendServer) getProducts(ctx context.Context) ([]*pb.Product, error) {
	resp, err := pb.NewProductCatalogServiceClient(fe.productCatalogSvcConn).ListProducts(ctx, &pb.Empty{})
	if err != nil {
		return nil, err
	}
	return resp.GetProducts(), nil
}

func (fe *frontendServer) getProduct(ctx context.Context, id string) (*pb.Product, error) {
	return pb.NewProductCatalogServiceClient(fe.productCatalogSvcConn).GetProduct(ctx, &pb.GetProductRequest{Id: id})
}

func (fe *frontendServer) getCart(ctx context.Context, userID string) ([]*pb.CartItem, error) {
	cart, err := pb.NewCartServiceClient(fe.cartSvcConn).GetCart(ctx, &pb.GetCartRequest{UserId: userID})
	if err != nil {
		return nil, err
	}
	return cart.GetItems(), nil
}

func (fe *frontendServer) emptyCart(ctx context.Context, userID string) error {
	_, err := pb.NewCartServiceClient(fe.cartSvcConn).EmptyCart(ctx, &pb.EmptyCartRequest{UserId: userID})
	return err
}

func (fe *frontendServer) insertCart(ctx context.Context, userID, productID string, quantity int32) error {
	req := &pb.AddItemRequest{
		UserId: userID,
		Item:   &pb.CartItem{ProductId: productID, Quantity: quantity},
	}
	_, err := pb.NewCartServiceClient(fe.cartSvcConn).AddItem(ctx, req)
	return err
}

func (fe *frontendServer) convertCurrency(ctx context.Context, amount *pb.Money, currency string) (*pb.Money, error) {
	if avoidNoopCurrencyConversionRPC && amount.GetCurrencyCode() == currency {
		return amount, nil
	}
	req := &pb.CurrencyConversionRequest{From: amount, ToCode: currency}
	return pb.NewCurrencyServiceClient(fe.currencySvcConn).Convert(ctx, req)
}

// getShippingQuote asks for the cost of shipping items and returns it in the
// shopper's currency. The quote does not depend on the address yet.
func (fe *frontendServer) getShippingQuote(ctx context.Context, items []*pb.CartItem, currency string) (*pb.Money, error) {
	quote, err := pb.NewShippingServiceClient(fe.shippingSvcConn).GetQuote(ctx, &pb.GetQuoteRequest{Items: items})
	if err != nil {
		return nil, err
	}
	cost, err := fe.convertCurrency(ctx, quote.GetCostUsd(), currency)
	if err != nil {
		return nil, errors.Wrap(err, "failed to convert currency for shipping cost")
	}
	return cost, nil
}

// getRecommendations resolves the recommended product ids to products, keeping
// at most maxRecommendations of them.
func (fe *frontendServer) getRecommendations(ctx context.Context, userID string, productIDs []string) ([]*pb.Product, error) {
	resp, err := pb.NewRecommendationServiceClient(fe.recommendationSvcConn).ListRecommendations(ctx,
		&pb.ListRecommendationsRequest{UserId: userID, ProductIds: productIDs})
	if err != nil {
		return nil, err
	}
	ids := resp.GetProductIds()
	if len(ids) > maxRecommendations {
		ids = ids[:maxRecommendations]
	}
	products := make([]*pb.Product, 0, len(ids))
	for _, id := range ids {
		p, err := fe.getProduct(ctx, id)
		if err != nil {
			return nil, errors.Wrapf(err, "failed to get recommended product info (#%s)", id)
		}
		products = append(products, p)
	}
	return products, nil
}

func (fe *frontendServer) getAd(ctx context.Context, ctxKeys []string) ([]*pb.Ad, error) {
	ctx, cancel := context.WithTimeout(ctx, adRequestTimeout)
	defer cancel()

	resp, err := pb.NewAdServiceClient(fe.adSvcConn).GetAds(ctx, &pb.AdRequest{ContextKeys: ctxKeys})
	if err != nil {
		return nil, errors.Wrap(err, "failed to get ads")
	}
	return resp.GetAds(), nil
}

// checkoutservice turns a user's cart into an order: it prices the cart in the user's currency,
// charges the card, ships the items, empties the cart and mails a confirmation.
package main

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/google/uuid"
	"github.com/pkg/errors"
	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/checkoutservice/genproto"
	money "github.com/GoogleCloudPlatform/microservices-demo/src/checkoutservice/money"
)

const defaultPort = "5050"

var log = newLogger()

func newLogger() *logrus.Logger {
	l := logrus.New()
	l.Out = os.Stdout
	l.Level = logrus.DebugLevel
	l.Formatter = &logrus.JSONFormatter{FieldMap: logrus.FieldMap{
		logrus.FieldKeyTime:  "timestamp",
		logrus.FieldKeyLevel: "severity",
		logrus.FieldKeyMsg:   "message",
	}}
	return l
}

type checkoutService struct {
	pb.UnimplementedCheckoutServiceServer

	productCatalogSvcAddr string
	productCatalogSvcConn *grpc.ClientConn

	cartSvcAddr string
	cartSvcConn *grpc.ClientConn

	currencySvcAddr string
	currencySvcConn *grpc.ClientConn

	shippingSvcAddr string
	shippingSvcConn *grpc.ClientConn

	emailSvcAddr string
	emailSvcConn *grpc.ClientConn

	paymentSvcAddr string
	paymentSvcConn *grpc.ClientConn
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = defaultPort
	}

	svc := &checkoutService{}
	upstreams := []struct {
		env  string
		addr *string
		conn **grpc.ClientConn
	}{
		{"PRODUCT_CATALOG_SERVICE_ADDR", &svc.productCatalogSvcAddr, &svc.productCatalogSvcConn},
		{"CART_SERVICE_ADDR", &svc.cartSvcAddr, &svc.cartSvcConn},
		{"CURRENCY_SERVICE_ADDR", &svc.currencySvcAddr, &svc.currencySvcConn},
		{"SHIPPING_SERVICE_ADDR", &svc.shippingSvcAddr, &svc.shippingSvcConn},
		{"EMAIL_SERVICE_ADDR", &svc.emailSvcAddr, &svc.emailSvcConn},
		{"PAYMENT_SERVICE_ADDR", &svc.paymentSvcAddr, &svc.paymentSvcConn},
	}
	for _, u := range upstreams {
		addr := os.Getenv(u.env)
		if addr == "" {
			log.Fatalf("environment variable %s is not set", u.env)
		}
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			log.Fatalf("cannot create a client for %s (%s): %v", u.env, addr, err)
		}
		*u.addr, *u.conn = addr, conn
	}

	lis, err := net.Listen("tcp", ":"+port)
	if err != nil {
		log.Fatalf("listen on port %s: %v", port, err)
	}
	srv := grpc.NewServer()
	pb.RegisterCheckoutServiceServer(srv, svc)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	log.Infof("checkoutservice serving gRPC on :%s", port)
	if err := srv.Serve(lis); err != nil {
		log.Fatalf("grpc server stopped: %v", err)
	}
}

// PlaceOrder runs one checkout. The card is charged before anything is shipped.
func (cs *checkoutService) PlaceOrder(ctx context.Context, req *pb.PlaceOrderRequest) (*pb.PlaceOrderResponse, error) {
	log.Infof("[PlaceOrder] user_id=%q user_currency=%q", req.UserId, req.UserCurrency)

	orderID, err := uuid.NewUUID()
	if err != nil {
		return nil, status.Error(codes.Internal, "could not generate an order id")
	}

	prep, err := cs.prepareOrderItemsAndShippingQuoteFromCart(ctx, req.UserId, req.UserCurrency, req.Address)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	total := orderTotal(req.UserCurrency, prep)

	txID, err := cs.chargeCard(ctx, &total, req.CreditCard)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "failed to charge card: %v", err)
	}
	log.Infof("payment went through (transaction_id: %s)", txID)

	trackingID, err := cs.shipOrder(ctx, req.Address, prep.cartItems)
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "shipping error: %v", err)
	}

	if err := cs.emptyUserCart(ctx, req.UserId); err != nil {
		// paid and shipped already: a cart that is not emptied is not worth failing the order
		log.Warnf("order %s: %v", orderID, err)
	}

	order := &pb.OrderResult{
		OrderId:            orderID.String(),
		ShippingTrackingId: trackingID,
		ShippingCost:       prep.shippingCostLocalized,
		ShippingAddress:    req.Address,
		Items:              prep.orderItems,
	}
	if err := cs.sendOrderConfirmation(ctx, req.Email, order); err != nil {
		log.Warnf("order %s: confirmation to %q not sent: %v", orderID, req.Email, err)
	} else {
		log.Infof("order %s: confirmation sent to %q", orderID, req.Email)
	}
	return &pb.PlaceOrderResponse{Order: order}, nil
}

// orderPrep is everything PlaceOrder needs before it charges: the priced lines, the cart
// they came from and the shipping cost, all in the user's currency.
type orderPrep struct {
	orderItems            []*pb.OrderItem
	cartItems             []*pb.CartItem
	shippingCostLocalized *pb.Money
}

// orderTotal is the shipping cost plus quantity times unit price of every line.
func orderTotal(currency string, prep orderPrep) pb.Money {
	total := money.Must(money.Sum(pb.Money{CurrencyCode: currency}, *prep.shippingCostLocalized))
	for _, line := range prep.orderItems {
		lineCost := money.MultiplySlow(*line.Cost, uint32(line.GetItem().GetQuantity()))
		total = money.Must(money.Sum(total, lineCost))
	}
	return total
}

func (cs *checkoutService) prepareOrderItemsAndShippingQuoteFromCart(ctx context.Context, userID, userCurrency string, address *pb.Address) (orderPrep, error) {
	cartItems, err := cs.getUserCart(ctx, userID)
	if err != nil {
		return orderPrep{}, fmt.Errorf("cart failure: %w", err)
	}
	orderItems, err := cs.prepOrderItems(ctx, cartItems, userCurrency)
	if err != nil {
		return orderPrep{}, fmt.Errorf("failed to prepare order: %w", err)
	}
	shippingUSD, err := cs.quoteShipping(ctx, address, cartItems)
	if err != nil {
		return orderPrep{}, fmt.Errorf("shipping quote failure: %w", err)
	}
	shipping, err := cs.convertCurrency(ctx, shippingUSD, userCurrency)
	if err != nil {
		return orderPrep{}, fmt.Errorf("failed to convert shipping cost to %s: %w", userCurrency, err)
	}
	return orderPrep{orderItems: orderItems, cartItems: cartItems, shippingCostLocalized: shipping}, nil
}

func (cs *checkoutService) getUserCart(ctx context.Context, userID string) ([]*pb.CartItem, error) {
	cart, err := pb.NewCartServiceClient(cs.cartSvcConn).GetCart(ctx, &pb.GetCartRequest{UserId: userID})
	if err != nil {
		return nil, fmt.Errorf("failed to get user cart during checkout: %w", err)
	}
	return cart.GetItems(), nil
}

func (cs *checkoutService) emptyUserCart(ctx context.Context, userID string) error {
	_, err := pb.NewCartServiceClient(cs.cartSvcConn).EmptyCart(ctx, &pb.EmptyCartRequest{UserId: userID})
	if err != nil {
		return fmt.Errorf("failed to empty user cart during checkout: %w", err)
	}
	return nil
}

// prepOrderItems looks up every cart line in the catalog and prices it in userCurrency.
func (cs *checkoutService) prepOrderItems(ctx context.Context, items []*pb.CartItem, userCurrency string) ([]*pb.OrderItem, error) {
	catalog := pb.NewProductCatalogServiceClient(cs.productCatalogSvcConn)
	priced := make([]*pb.OrderItem, 0, len(items))
	for _, item := range items {
		id := item.GetProductId()
		product, err := catalog.GetProduct(ctx, &pb.GetProductRequest{Id: id})
		if err != nil {
			return nil, fmt.Errorf("failed to get product %q: %w", id, err)
		}
		unitPrice, err := cs.convertCurrency(ctx, product.GetPriceUsd(), userCurrency)
		if err != nil {
			return nil, fmt.Errorf("failed to convert price of %q to %s: %w", id, userCurrency, err)
		}
		priced = append(priced, &pb.OrderItem{Item: item, Cost: unitPrice})
	}
	return priced, nil
}

func (cs *checkoutService) quoteShipping(ctx context.Context, address *pb.Address, items []*pb.CartItem) (*pb.Money, error) {
	quote, err := pb.NewShippingServiceClient(cs.shippingSvcConn).GetQuote(ctx, &pb.GetQuoteRequest{Address: address, Items: items})
	if err != nil {
		return nil, fmt.Errorf("failed to get shipping quote: %w", err)
	}
	return quote.GetCostUsd(), nil
}

// convertCurrency returns the rpc error as is; callers say what was being converted.
func (cs *checkoutService) convertCurrency(ctx context.Context, from *pb.Money, toCurrency string) (*pb.Money, error) {
	return pb.NewCurrencyServiceClient(cs.currencySvcConn).Convert(ctx, &pb.CurrencyConversionRequest{From: from, ToCode: toCurrency})
}

func (cs *checkoutService) chargeCard(ctx context.Context, amount *pb.Money, paymentInfo *pb.CreditCardInfo) (string, error) {
	resp, err := pb.NewPaymentServiceClient(cs.paymentSvcConn).Charge(ctx, &pb.ChargeRequest{Amount: amount, CreditCard: paymentInfo})
	if err != nil {
		return "", fmt.Errorf("could not charge the card: %w", err)
	}
	return resp.GetTransactionId(), nil
}

func (cs *checkoutService) shipOrder(ctx context.Context, address *pb.Address, items []*pb.CartItem) (string, error) {
	resp, err := pb.NewShippingServiceClient(cs.shippingSvcConn).ShipOrder(ctx, &pb.ShipOrderRequest{Address: address, Items: items})
	if err != nil {
		return "", errors.Wrap(err, "shipment failed")
	}
	return resp.GetTrackingId(), nil
}

func (cs *checkoutService) sendOrderConfirmation(ctx context.Context, email string, order *pb.OrderResult) error {
	_, err := pb.NewEmailServiceClient(cs.emailSvcConn).SendOrderConfirmation(ctx, &pb.SendOrderConfirmationRequest{Email: email, Order: order})
	return err
}

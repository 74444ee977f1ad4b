// checkout orchestrates an order: it reads the cart, prices the items in the
// user's currency, charges the card, ships, empties the cart, mails a
// confirmation and publishes the result to Kafka for accounting and
// fraud-detection.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.24.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "github.com/open-telemetry/opentelemetry-demo/src/checkout/genproto/oteldemo"
	"github.com/open-telemetry/opentelemetry-demo/src/checkout/kafka"
	"github.com/open-telemetry/opentelemetry-demo/src/checkout/money"
)

type checkout struct {
	pb.UnimplementedCheckoutServiceServer

	// addresses, from the *_ADDR environment variables
	productCatalogSvcAddr string
	cartSvcAddr           string
	currencySvcAddr       string
	shippingSvcAddr       string
	emailSvcAddr          string
	paymentSvcAddr        string
	kafkaBrokerSvcAddr    string

	// clients, created once at startup
	productCatalogSvcClient pb.ProductCatalogServiceClient
	cartSvcClient           pb.CartServiceClient
	currencySvcClient       pb.CurrencyServiceClient
	paymentSvcClient        pb.PaymentServiceClient
	shippingSvcClient       pb.ShippingServiceClient
	emailSvcClient          pb.EmailServiceClient
	KafkaProducerClient     sarama.AsyncProducer
	httpClient              *http.Client
}

// orderPrep is everything PlaceOrder needs from the cart before charging.
type orderPrep struct {
	orderItems            []*pb.OrderItem
	cartItems             []*pb.CartItem
	shippingCostLocalized *pb.Money
}

func (cs *checkout) PlaceOrder(ctx context.Context, req *pb.PlaceOrderRequest) (resp *pb.PlaceOrderResponse, err error) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(
		attribute.String("app.user.id", req.UserId),
		attribute.String("app.user.currency", req.UserCurrency),
	)
	logger.LogAttrs(ctx, slog.LevelInfo, "[PlaceOrder]",
		slog.String("user_id", req.UserId), slog.String("user_currency", req.UserCurrency))
	defer func() {
		if err != nil {
			span.AddEvent("error", trace.WithAttributes(semconv.ExceptionMessageKey.String(err.Error())))
		}
	}()

	orderID, err := uuid.NewUUID()
	if err != nil {
		return nil, status.Error(codes.Internal, "failed to generate order uuid")
	}

	prep, err := cs.prepareOrderItemsAndShippingQuoteFromCart(ctx, req.UserId, req.UserCurrency, req.Address)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	span.AddEvent("prepared")

	total := orderTotal(req.UserCurrency, prep.shippingCostLocalized, prep.orderItems)

	txID, err := cs.chargeCard(ctx, total, req.CreditCard)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "failed to charge card: %v", err)
	}
	logger.LogAttrs(ctx, slog.LevelInfo, "payment went through", slog.String("transaction_id", txID))
	span.AddEvent("charged", trace.WithAttributes(attribute.String("app.payment.transaction.id", txID)))

	trackingID, err := cs.shipOrder(ctx, req.Address, prep.cartItems)
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "shipping error: %v", err)
	}
	tracking := attribute.String("app.shipping.tracking.id", trackingID)
	span.AddEvent("shipped", trace.WithAttributes(tracking))

	// the order is placed either way; a cart that could not be emptied only costs the user a click
	if err := cs.emptyUserCart(ctx, req.UserId); err != nil {
		logger.Warn("cart not emptied after checkout", slog.String("user_id", req.UserId), slog.Any("error", err))
	}

	order := &pb.OrderResult{
		OrderId:            orderID.String(),
		ShippingTrackingId: trackingID,
		ShippingCost:       prep.shippingCostLocalized,
		ShippingAddress:    req.Address,
		Items:              prep.orderItems,
	}
	span.SetAttributes(
		attribute.String("app.order.id", order.OrderId),
		attribute.Float64("app.shipping.amount", asFloat(prep.shippingCostLocalized)),
		attribute.Float64("app.order.amount", asFloat(total)),
		attribute.Int("app.order.items.count", len(prep.orderItems)),
		tracking,
	)

	if err := cs.sendOrderConfirmation(ctx, req.Email, order); err != nil {
		logger.Warn(fmt.Sprintf("failed to send order confirmation to %q: %v", req.Email, err))
	} else {
		logger.Info(fmt.Sprintf("order confirmation email sent to %q", req.Email))
	}

	// publishing is optional: without KAFKA_ADDR there is no post-processing
	if cs.kafkaBrokerSvcAddr != "" {
		cs.sendToPostProcessor(ctx, order)
	}

	return &pb.PlaceOrderResponse{Order: order}, nil
}

// orderTotal is the shipping cost plus every item's price times its quantity.
func orderTotal(currency string, shipping *pb.Money, items []*pb.OrderItem) *pb.Money {
	total := money.Must(money.Sum(&pb.Money{CurrencyCode: currency}, shipping))
	for _, item := range items {
		linePrice := money.MultiplySlow(item.GetCost(), uint32(item.GetItem().GetQuantity()))
		total = money.Must(money.Sum(total, linePrice))
	}
	return total
}

// asFloat renders a Money as a float for span attributes (never for arithmetic).
func asFloat(m *pb.Money) float64 {
	return float64(m.GetUnits()) + float64(m.GetNanos())/1e9
}

func (cs *checkout) prepareOrderItemsAndShippingQuoteFromCart(ctx context.Context, userID, userCurrency string, address *pb.Address) (orderPrep, error) {
	ctx, span := tracer.Start(ctx, "prepareOrderItemsAndShippingQuoteFromCart")
	defer span.End()

	cartItems, err := cs.getUserCart(ctx, userID)
	if err != nil {
		return orderPrep{}, fmt.Errorf("cart failure: %w", err)
	}
	orderItems, err := cs.prepOrderItems(ctx, cartItems, userCurrency)
	if err != nil {
		return orderPrep{}, fmt.Errorf("failed to prepare order: %w", err)
	}
	quoteUSD, err := cs.quoteShipping(ctx, address, cartItems)
	if err != nil {
		return orderPrep{}, fmt.Errorf("failed to prepare order: shipping quote failure: %w", err)
	}
	shipping, err := cs.convertCurrency(ctx, quoteUSD, userCurrency)
	if err != nil {
		return orderPrep{}, fmt.Errorf("failed to convert shipping cost to currency: %w", err)
	}

	var units int
	for _, item := range cartItems {
		units += int(item.GetQuantity())
	}
	span.SetAttributes(
		attribute.Float64("app.shipping.amount", asFloat(shipping)),
		attribute.Int("app.cart.items.count", units),
		attribute.Int("app.order.items.count", len(orderItems)),
	)

	return orderPrep{
		orderItems:            orderItems,
		cartItems:             cartItems,
		shippingCostLocalized: shipping,
	}, nil
}

func (cs *checkout) getUserCart(ctx context.Context, userID string) ([]*pb.CartItem, error) {
	cart, err := cs.cartSvcClient.GetCart(ctx, &pb.GetCartRequest{UserId: userID})
	if err != nil {
		return nil, fmt.Errorf("failed to get user cart during checkout: %w", err)
	}
	return cart.GetItems(), nil
}

func (cs *checkout) emptyUserCart(ctx context.Context, userID string) error {
	_, err := cs.cartSvcClient.EmptyCart(ctx, &pb.EmptyCartRequest{UserId: userID})
	if err != nil {
		return fmt.Errorf("failed to empty user cart during checkout: %w", err)
	}
	return nil
}

// prepOrderItems looks up each cart line in the catalog and prices it in userCurrency.
func (cs *checkout) prepOrderItems(ctx context.Context, items []*pb.CartItem, userCurrency string) ([]*pb.OrderItem, error) {
	priced := make([]*pb.OrderItem, 0, len(items))
	for _, item := range items {
		product, err := cs.productCatalogSvcClient.GetProduct(ctx, &pb.GetProductRequest{Id: item.GetProductId()})
		if err != nil {
			return nil, fmt.Errorf("failed to get product #%q: %w", item.GetProductId(), err)
		}
		cost, err := cs.convertCurrency(ctx, product.GetPriceUsd(), userCurrency)
		if err != nil {
			return nil, fmt.Errorf("failed to convert price of %q to %s: %w", item.GetProductId(), userCurrency, err)
		}
		priced = append(priced, &pb.OrderItem{Item: item, Cost: cost})
	}
	return priced, nil
}

func (cs *checkout) convertCurrency(ctx context.Context, from *pb.Money, toCurrency string) (*pb.Money, error) {
	converted, err := cs.currencySvcClient.Convert(ctx, &pb.CurrencyConversionRequest{From: from, ToCode: toCurrency})
	if err != nil {
		return nil, fmt.Errorf("failed to convert currency: %w", err)
	}
	return converted, nil
}

func (cs *checkout) chargeCard(ctx context.Context, amount *pb.Money, paymentInfo *pb.CreditCardInfo) (string, error) {
	payment := cs.paymentSvcClient
	if cs.isFeatureFlagEnabled(ctx, "paymentUnreachable") {
		// the flag simulates an outage by dialling an address nobody listens on
		payment = pb.NewPaymentServiceClient(mustCreateClient("badAddress:50051"))
	}

	charged, err := payment.Charge(ctx, &pb.ChargeRequest{Amount: amount, CreditCard: paymentInfo})
	if err != nil {
		return "", fmt.Errorf("could not charge the card: %w", err)
	}
	return charged.GetTransactionId(), nil
}

// shippingRequest is the body of both shipping calls, get-quote and ship-order.
type shippingRequest struct {
	Address *pb.Address    `json:"address"`
	Items   []*pb.CartItem `json:"items"`
}

type getQuoteResponse struct {
	CostUsd *pb.Money `json:"cost_usd"`
}

type shipOrderResponse struct {
	TrackingID string `json:"tracking_id"`
}

// postJSON POSTs payload as JSON to url and decodes a 200 response into out (when out is not nil).
func postJSON(ctx context.Context, client *http.Client, service, url string, payload, out any) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("failed to marshal %s request: %w", service, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")

	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("failed POST to %s service: %w", service, err)
	}
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("failed POST to %s service: expected 200, got %d", service, resp.StatusCode)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("failed to decode %s response: %w", service, err)
	}
	return nil
}

func (cs *checkout) quoteShipping(ctx context.Context, address *pb.Address, items []*pb.CartItem) (*pb.Money, error) {
	var quote getQuoteResponse
	err := postJSON(ctx, cs.httpClient, "shipping", cs.shippingSvcAddr+"/get-quote",
		shippingRequest{Address: address, Items: items}, &quote)
	if err != nil {
		return nil, err
	}
	return quote.CostUsd, nil
}

func (cs *checkout) shipOrder(ctx context.Context, address *pb.Address, items []*pb.CartItem) (string, error) {
	var shipped shipOrderResponse
	err := postJSON(ctx, cs.httpClient, "shipping", cs.shippingSvcAddr+"/ship-order",
		shippingRequest{Address: address, Items: items}, &shipped)
	if err != nil {
		return "", err
	}
	if shipped.TrackingID == "" {
		return "", fmt.Errorf("shipping service returned an empty tracking ID")
	}
	return shipped.TrackingID, nil
}

func (cs *checkout) sendOrderConfirmation(ctx context.Context, email string, order *pb.OrderResult) error {
	payload := map[string]any{"email": email, "order": order}
	return postJSON(ctx, cs.httpClient, "email", cs.emailSvcAddr+"/send_order_confirmation", payload, nil)
}

// sendToPostProcessor publishes the order on the orders topic and waits for
// the broker's acknowledgement (or the request context to end).
func (cs *checkout) sendToPostProcessor(ctx context.Context, result *pb.OrderResult) {
	payload, err := proto.Marshal(result)
	if err != nil {
		logger.Error("could not encode order for kafka", slog.Any("error", err))
		return
	}

	msg := &sarama.ProducerMessage{Topic: kafka.Topic, Value: sarama.ByteEncoder(payload)}
	span := createProducerSpan(ctx, msg)
	defer span.End()

	started := time.Now()
	record := func(ok bool) {
		span.SetAttributes(
			attribute.Bool("messaging.kafka.producer.success", ok),
			attribute.Int("messaging.kafka.producer.duration_ms", int(time.Since(started).Milliseconds())),
		)
	}

	select {
	case cs.KafkaProducerClient.Input() <- msg:
	case <-ctx.Done():
		logger.Error("order not queued for kafka before the deadline", slog.Any("error", ctx.Err()))
		return
	}

	select {
	case ack := <-cs.KafkaProducerClient.Successes():
		record(true)
		span.SetAttributes(semconv.MessagingKafkaMessageOffset(int(ack.Offset)))
		logger.Info("order published", slog.Int64("offset", ack.Offset), slog.Duration("took", time.Since(started)))
	case failed := <-cs.KafkaProducerClient.Errors():
		record(false)
		logger.Error("kafka rejected the order", slog.Any("error", failed.Err))
	case <-ctx.Done():
		record(false)
		logger.Warn("gave up waiting for the kafka ack", slog.Any("error", ctx.Err()))
	}
}

var dialMu sync.Mutex

// mustCreateClient opens an instrumented, plaintext gRPC connection or exits.
func mustCreateClient(svcAddr string) *grpc.ClientConn {
	dialMu.Lock()
	defer dialMu.Unlock()

	conn, err := grpc.NewClient(svcAddr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler()),
	)
	if err != nil {
		logger.Error("cannot create gRPC client", slog.String("addr", svcAddr), slog.Any("error", err))
		os.Exit(1)
	}
	return conn
}

// newHTTPClient is the client for the HTTP services (shipping, email), traced.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport)}
}

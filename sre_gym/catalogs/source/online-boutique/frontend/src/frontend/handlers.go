// HTTP handlers of the storefront: each page fans out to the backend services
// through the helpers in rpc.go and renders one of the html templates.

package main

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"github.com/pkg/errors"
	"github.com/sirupsen/logrus"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/frontend/genproto"
	"github.com/GoogleCloudPlatform/microservices-demo/src/frontend/money"
)

type platformDetails struct {
	css      string
	provider string
}

var (
	frontendMessage = strings.TrimSpace(envOrDefault("FRONTEND_MESSAGE", ""))
	plat            platformDetails
)

// productCard is one product tile (home page) or the product shown on its own page.
type productCard struct {
	Item  *pb.Product
	Price *pb.Money
}

// cartLine is one row of the cart page; Price is the line subtotal.
type cartLine struct {
	Item     *pb.Product
	Quantity int32
	Price    *pb.Money
}

// requestLog is the logger the logging middleware stored on the request.
func requestLog(r *http.Request) logrus.FieldLogger {
	return r.Context().Value(ctxKeyLog{}).(logrus.FieldLogger)
}

// render executes a page template with the fields every page shares.
func render(w http.ResponseWriter, r *http.Request, log logrus.FieldLogger, page string, data map[string]interface{}) {
	if err := templates.ExecuteTemplate(w, page, injectCommonTemplateData(r, data)); err != nil {
		log.WithField("template", page).Error(err)
	}
}

func (fe *frontendServer) homeHandler(w http.ResponseWriter, r *http.Request) {
	log := requestLog(r)
	ctx := r.Context()
	currency := currentCurrency(r)
	log.WithField("currency", currency).Info("home")

	currencies, err := fe.getCurrencies(ctx)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve currencies"), http.StatusInternalServerError)
		return
	}
	catalog, err := fe.getProducts(ctx)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve products"), http.StatusInternalServerError)
		return
	}
	cart, err := fe.getCart(ctx, sessionID(r))
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve cart"), http.StatusInternalServerError)
		return
	}

	cards := make([]productCard, 0, len(catalog))
	for _, p := range catalog {
		price, err := fe.convertCurrency(ctx, p.GetPriceUsd(), currency)
		if err != nil {
			renderHTTPError(log, r, w, errors.Wrapf(err, "could not convert the price of %s", p.GetId()), http.StatusInternalServerError)
			return
		}
		cards = append(cards, productCard{Item: p, Price: price})
	}

	render(w, r, log, "home", map[string]interface{}{
		"show_currency": true,
		"currencies":    currencies,
		"products":      cards,
		"cart_size":     cartSize(cart),
		"banner_color":  envOrDefault("BANNER_COLOR", ""),
		"ad":            fe.chooseAd(ctx, nil, log),
	})
}

func (fe *frontendServer) productHandler(w http.ResponseWriter, r *http.Request) {
	log := requestLog(r)
	ctx := r.Context()
	id := mux.Vars(r)["id"]
	if id == "" {
		renderHTTPError(log, r, w, errors.New("product id not specified"), http.StatusBadRequest)
		return
	}
	currency := currentCurrency(r)
	log.WithFields(logrus.Fields{"id": id, "currency": currency}).Debug("serving product page")

	p, err := fe.getProduct(ctx, id)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve product"), http.StatusInternalServerError)
		return
	}
	currencies, err := fe.getCurrencies(ctx)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve currencies"), http.StatusInternalServerError)
		return
	}
	cart, err := fe.getCart(ctx, sessionID(r))
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve cart"), http.StatusInternalServerError)
		return
	}
	price, err := fe.convertCurrency(ctx, p.GetPriceUsd(), currency)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not convert the product price"), http.StatusInternalServerError)
		return
	}

	// Recommendations are decoration: a failure is logged and the page still renders.
	recs, err := fe.getRecommendations(ctx, sessionID(r), []string{id})
	if err != nil {
		log.WithField("error", err).Warn("recommendations unavailable")
	}

	render(w, r, log, "product", map[string]interface{}{
		"ad":              fe.chooseAd(ctx, p.Categories, log),
		"show_currency":   true,
		"currencies":      currencies,
		"product":         productCard{Item: p, Price: price},
		"recommendations": recs,
		"cart_size":       cartSize(cart),
	})
}

func (fe *frontendServer) addToCartHandler(w http.ResponseWriter, r *http.Request) {
	log := requestLog(r)
	ctx := r.Context()
	productID := r.FormValue("product_id")
	qty, err := strconv.ParseUint(r.FormValue("quantity"), 10, 32)
	if productID == "" || err != nil || qty == 0 {
		renderHTTPError(log, r, w, errors.New("invalid form input"), http.StatusBadRequest)
		return
	}
	log.WithFields(logrus.Fields{"product": productID, "quantity": qty}).Debug("adding to cart")

	// Look the product up first so that unknown ids never reach the cart.
	p, err := fe.getProduct(ctx, productID)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve product"), http.StatusInternalServerError)
		return
	}
	if err := fe.insertCart(ctx, sessionID(r), p.GetId(), int32(qty)); err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "failed to add to cart"), http.StatusInternalServerError)
		return
	}
	redirect(w, baseUrl+"/cart")
}

func (fe *frontendServer) emptyCartHandler(w http.ResponseWriter, r *http.Request) {
	log := requestLog(r)
	log.Debug("emptying cart")
	if err := fe.emptyCart(r.Context(), sessionID(r)); err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "failed to empty cart"), http.StatusInternalServerError)
		return
	}
	redirect(w, baseUrl+"/")
}

func (fe *frontendServer) viewCartHandler(w http.ResponseWriter, r *http.Request) {
	log := requestLog(r)
	ctx := r.Context()
	currency := currentCurrency(r)
	log.Debug("view user cart")

	currencies, err := fe.getCurrencies(ctx)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve currencies"), http.StatusInternalServerError)
		return
	}
	cart, err := fe.getCart(ctx, sessionID(r))
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve cart"), http.StatusInternalServerError)
		return
	}
	recs, err := fe.getRecommendations(ctx, sessionID(r), cartIDs(cart))
	if err != nil {
		log.WithField("error", err).Warn("recommendations unavailable")
	}
	shipping, err := fe.getShippingQuote(ctx, cart, currency)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "failed to get shipping quote"), http.StatusInternalServerError)
		return
	}

	lines := make([]cartLine, 0, len(cart))
	total := pb.Money{CurrencyCode: currency}
	for _, ci := range cart {
		p, err := fe.getProduct(ctx, ci.GetProductId())
		if err != nil {
			renderHTTPError(log, r, w, errors.Wrapf(err, "could not retrieve product #%s", ci.GetProductId()), http.StatusInternalServerError)
			return
		}
		unit, err := fe.convertCurrency(ctx, p.GetPriceUsd(), currency)
		if err != nil {
			renderHTTPError(log, r, w, errors.Wrapf(err, "could not convert the price of #%s", ci.GetProductId()), http.StatusInternalServerError)
			return
		}
		subtotal := money.MultiplySlow(*unit, uint32(ci.GetQuantity()))
		lines = append(lines, cartLine{Item: p, Quantity: ci.GetQuantity(), Price: &subtotal})
		total = money.Must(money.Sum(total, subtotal))
	}
	total = money.Must(money.Sum(total, *shipping))

	// the card form offers this year and the four after it
	thisYear := time.Now().Year()
	years := make([]int, 5)
	for i := range years {
		years[i] = thisYear + i
	}

	render(w, r, log, "cart", map[string]interface{}{
		"currencies":       currencies,
		"recommendations":  recs,
		"cart_size":        cartSize(cart),
		"shipping_cost":    shipping,
		"show_currency":    true,
		"total_cost":       total,
		"items":            lines,
		"expiration_years": years,
	})
}

// orderFromForm reads the checkout form; malformed numbers become zero and the
// checkout service rejects them.
func orderFromForm(r *http.Request) *pb.PlaceOrderRequest {
	num := func(field string) int32 {
		v, _ := strconv.ParseInt(r.FormValue(field), 10, 32)
		return int32(v)
	}
	return &pb.PlaceOrderRequest{
		Email:        r.FormValue("email"),
		UserId:       sessionID(r),
		UserCurrency: currentCurrency(r),
		Address: &pb.Address{
			StreetAddress: r.FormValue("street_address"),
			City:          r.FormValue("city"),
			State:         r.FormValue("state"),
			Country:       r.FormValue("country"),
			ZipCode:       num("zip_code"),
		},
		CreditCard: &pb.CreditCardInfo{
			CreditCardNumber:          r.FormValue("credit_card_number"),
			CreditCardExpirationMonth: num("credit_card_expiration_month"),
			CreditCardExpirationYear:  num("credit_card_expiration_year"),
			CreditCardCvv:             num("credit_card_cvv"),
		},
	}
}

func (fe *frontendServer) placeOrderHandler(w http.ResponseWriter, r *http.Request) {
	log := requestLog(r)
	ctx := r.Context()
	log.Debug("placing order")

	resp, err := pb.NewCheckoutServiceClient(fe.checkoutSvcConn).PlaceOrder(ctx, orderFromForm(r))
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "failed to complete the order"), http.StatusInternalServerError)
		return
	}
	order := resp.GetOrder()
	log.WithField("order", order.GetOrderId()).Info("order placed")

	paid := *order.GetShippingCost()
	for _, it := range order.GetItems() {
		line := money.MultiplySlow(*it.GetCost(), uint32(it.GetItem().GetQuantity()))
		paid = money.Must(money.Sum(paid, line))
	}

	currencies, err := fe.getCurrencies(ctx)
	if err != nil {
		renderHTTPError(log, r, w, errors.Wrap(err, "could not retrieve currencies"), http.StatusInternalServerError)
		return
	}
	recs, _ := fe.getRecommendations(ctx, sessionID(r), nil)

	render(w, r, log, "order", map[string]interface{}{
		"show_currency":   false,
		"currencies":      currencies,
		"order":           order,
		"total_paid":      &paid,
		"recommendations": recs,
	})
}

func (fe *frontendServer) setCurrencyHandler(w http.ResponseWriter, r *http.Request) {
	log := requestLog(r)
	next := r.FormValue("currency_code")
	log.WithFields(logrus.Fields{"curr.new": next, "curr.old": currentCurrency(r)}).Debug("setting currency")

	if next != "" {
		http.SetCookie(w, &http.Cookie{Name: cookieCurrency, Value: next, MaxAge: cookieMaxAge})
	}
	back := r.Header.Get("referer")
	if back == "" {
		back = baseUrl + "/"
	}
	redirect(w, back)
}

func redirect(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusFound)
}

// chooseAd picks one of the ads matching ctxKeys. Ads are optional: any error
// yields nil and the page renders without a banner.
func (fe *frontendServer) chooseAd(ctx context.Context, ctxKeys []string, log logrus.FieldLogger) *pb.Ad {
	ads, err := fe.getAd(ctx, ctxKeys)
	if err != nil {
		log.WithField("error", err).Warn("failed to retrieve ads")
		return nil
	}
	if len(ads) == 0 {
		return nil
	}
	return ads[rand.Intn(len(ads))]
}

func renderHTTPError(log logrus.FieldLogger, r *http.Request, w http.ResponseWriter, err error, code int) {
	log.WithField("error", err).Error("request error")
	w.WriteHeader(code)
	render(w, r, log, "error", map[string]interface{}{
		"error":       fmt.Sprintf("%+v", err),
		"status_code": code,
		"status":      http.StatusText(code),
	})
}

// currentCurrency is the currency chosen by the shopper, or the shop default.
func currentCurrency(r *http.Request) string {
	if c, err := r.Cookie(cookieCurrency); err == nil && c.Value != "" {
		return c.Value
	}
	return defaultCurrency
}

func sessionID(r *http.Request) string {
	id, _ := r.Context().Value(ctxKeySessionID{}).(string)
	return id
}

// cartIDs lists the product ids in the cart, in cart order.
func cartIDs(c []*pb.CartItem) []string {
	ids := make([]string, 0, len(c))
	for _, it := range c {
		ids = append(ids, it.GetProductId())
	}
	return ids
}

// cartSize counts units, not lines: two mugs and a hat make three.
func cartSize(c []*pb.CartItem) int {
	units := 0
	for _, it := range c {
		units += int(it.GetQuantity())
	}
	return units
}

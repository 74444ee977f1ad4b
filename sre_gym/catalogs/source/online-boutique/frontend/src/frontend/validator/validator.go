// Package validator checks the storefront's form input before it reaches a
// backend, so that typos get a 422 page instead of a failed RPC.
package validator

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
)

// ErrMissingField is wrapped by every error about an empty required field.
var ErrMissingField = errors.New("missing required field")

// AddToCartPayload is the form of POST /cart.
type AddToCartPayload struct {
	Quantity  uint64
	ProductID string
}

// Validate checks the product id and the quantity picker's range.
func (p AddToCartPayload) Validate() error {
	if p.ProductID == "" {
		return fmt.Errorf("product_id: %w", ErrMissingField)
	}
	if p.Quantity < 1 || p.Quantity > 10 {
		return fmt.Errorf("quantity %d is out of range [1, 10]", p.Quantity)
	}
	return nil
}

// SetCurrencyPayload is the form of POST /setCurrency.
type SetCurrencyPayload struct {
	Currency string
}

// Validate accepts three-letter upper-case codes only.
func (p SetCurrencyPayload) Validate() error {
	if len(p.Currency) != 3 || strings.ToUpper(p.Currency) != p.Currency {
		return fmt.Errorf("currency_code %q is not an ISO 4217 code", p.Currency)
	}
	return nil
}

// PlaceOrderPayload is the checkout form.
type PlaceOrderPayload struct {
	Email         string
	StreetAddress string
	ZipCode       int64
	City          string
	State         string
	Country       string
	CcNumber      string
	CcMonth       int64
	CcYear        int64
	CcCVV         int64
}

// Validate checks the address and card fields of the checkout form.
func (p PlaceOrderPayload) Validate() error {
	if _, err := mail.ParseAddress(p.Email); err != nil {
		return fmt.Errorf("email: %w", err)
	}
	if strings.TrimSpace(p.StreetAddress) == "" {
		return fmt.Errorf("street_address: %w", ErrMissingField)
	}
	if strings.TrimSpace(p.City) == "" {
		return fmt.Errorf("city: %w", ErrMissingField)
	}
	if strings.TrimSpace(p.Country) == "" {
		return fmt.Errorf("country: %w", ErrMissingField)
	}
	if p.CcMonth < 1 || p.CcMonth > 12 {
		return fmt.Errorf("credit_card_expiration_month %d is not a month", p.CcMonth)
	}
	if p.CcCVV < 100 || p.CcCVV > 9999 {
		return errors.New("credit_card_cvv must have 3 or 4 digits")
	}
	return nil
}

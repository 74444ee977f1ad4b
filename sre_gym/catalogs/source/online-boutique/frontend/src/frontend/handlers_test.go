// Copyright 2018 Google LLC
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package main

import (
	"net/http/httptest"
	"testing"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/frontend/genproto"
)

func TestCartSize(t *testing.T) {
	cart := []*pb.CartItem{
		{ProductId: "OLJCESPC7Z", Quantity: 2},
		{ProductId: "66VCHSJNUP", Quantity: 3},
	}
	if got := cartSize(cart); got != 5 {
		t.Fatalf("cartSize() = %d, want 5", got)
	}
	if got := cartSize(nil); got != 0 {
		t.Fatalf("cartSize(nil) = %d, want 0", got)
	}
}

func TestCartIDs(t *testing.T) {
	cart := []*pb.CartItem{{ProductId: "OLJCESPC7Z"}, {ProductId: "1YMWWN1N4O"}}
	ids := cartIDs(cart)
	if len(ids) != 2 || ids[0] != "OLJCESPC7Z" || ids[1] != "1YMWWN1N4O" {
		t.Fatalf("cartIDs() = %v", ids)
	}
}

func TestCurrentCurrencyDefaults(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	if got := currentCurrency(r); got != defaultCurrency {
		t.Fatalf("currentCurrency() = %q, want %q", got, defaultCurrency)
	}
}

func TestWhitelistedCurrencies(t *testing.T) {
	for _, c := range []string{"USD", "EUR", "CAD", "JPY", "GBP", "TRY"} {
		if !whitelistedCurrencies[c] {
			t.Errorf("currency %s should be offered", c)
		}
	}
}

func TestAdRequestTimeout(t *testing.T) {
	if adRequestTimeout.Milliseconds() != 100 {
		t.Fatalf("ads are a soft dependency and must time out after 100ms, got %v", adRequestTimeout)
	}
}

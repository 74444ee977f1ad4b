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

package money

import (
	"testing"

	pb "github.com/GoogleCloudPlatform/microservices-demo/src/checkoutservice/genproto"
)

func mmc(u int64, n int32, c string) pb.Money { return pb.Money{Units: u, Nanos: n, CurrencyCode: c} }
func mm(u int64, n int32) pb.Money            { return mmc(u, n, "") }

func TestIsValid(t *testing.T) {
	tests := []struct {
		name string
		in   pb.Money
		want bool
	}{
		{"valid -/-", mm(-981273891273, -999999999), true},
		{"invalid -/+", mm(-981273891273, +999999999), false},
		{"invalid nanos", mm(1, 1000000000), false},
	}
	for _, tt := range tests {
		if got := IsValid(tt.in); got != tt.want {
			t.Errorf("IsValid(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSum(t *testing.T) {
	got, err := Sum(mmc(1, 999999999, "USD"), mmc(1, 1, "USD"))
	if err != nil || got.GetUnits() != 3 || got.GetNanos() != 0 {
		t.Fatalf("Sum() = %v, %v", got, err)
	}
	if _, err := Sum(mmc(1, 0, "USD"), mmc(1, 0, "EUR")); err != ErrMismatchingCurrency {
		t.Fatalf("Sum() mismatching currency: %v", err)
	}
}

func TestMultiplySlow(t *testing.T) {
	if got := MultiplySlow(mmc(3, 500000000, "USD"), 3); got.GetUnits() != 10 || got.GetNanos() != 500000000 {
		t.Fatalf("MultiplySlow() = %v", got)
	}
}

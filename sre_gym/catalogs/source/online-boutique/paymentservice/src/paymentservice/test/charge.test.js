// Copyright 2018 Google LLC
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

const assert = require('assert');
const charge = require('../charge');

function request (number, month, year) {
  return {
    amount: { currency_code: 'USD', units: 19, nanos: 990000000 },
    credit_card: {
      credit_card_number: number,
      credit_card_cvv: 672,
      credit_card_expiration_year: year,
      credit_card_expiration_month: month
    }
  };
}

describe('charge', () => {
  it('returns a transaction id for a valid VISA card', () => {
    const res = charge(request('4432-8015-6152-0454', 1, 2039));
    assert.ok(res.transaction_id);
  });

  it('rejects AMEX cards', () => {
    assert.throws(() => charge(request('3714-4963-5398-431', 1, 2039)), /Only VISA or MasterCard/);
  });

  it('rejects invalid numbers', () => {
    assert.throws(() => charge(request('4432-8015-6152-0455', 1, 2039)), /invalid/);
  });

  it('rejects cards that expired last year', () => {
    const y = new Date().getFullYear() - 1;
    assert.throws(() => charge(request('4432-8015-6152-0454', 12, y)), /expired/);
  });
});

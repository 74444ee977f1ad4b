// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0
const assert = require('assert');
const { charge } = require('../charge');

function request (number, month, year) {
  return {
    amount: { currencyCode: 'USD', units: 101, nanos: 960000000 },
    creditCard: {
      creditCardNumber: number,
      creditCardCvv: 672,
      creditCardExpirationYear: year,
      creditCardExpirationMonth: month
    }
  };
}

describe('charge', () => {
  it('returns a transaction id for a valid visa card', async () => {
    const res = await charge(request('4432-8015-6152-0454', 1, 2039));
    assert.ok(res.transactionId);
  });

  it('rejects expired cards', async () => {
    await assert.rejects(charge(request('4432-8015-6152-0454', 1, 2000)), /expired/);
  });
});

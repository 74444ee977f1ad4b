const assert = require('assert');
const charge = require('../charge');

const VISA = '4432-8015-6152-0454';
const AMEX = '3714-4963-5398-431';

function chargeRequest (number, { month = 1, year = 2039 } = {}) {
  return {
    amount: { currency_code: 'USD', units: 19, nanos: 990000000 },
    credit_card: {
      credit_card_number: number,
      credit_card_cvv: 672,
      credit_card_expiration_month: month,
      credit_card_expiration_year: year
    }
  };
}

describe('charge', () => {
  it('returns a transaction id for a valid VISA card', () => {
    const { transaction_id: id } = charge(chargeRequest(VISA));
    assert.match(id, /^[0-9a-f-]{36}$/);
  });

  it('rejects AMEX cards', () => {
    assert.throws(() => charge(chargeRequest(AMEX)), /Only VISA or MasterCard is accepted/);
  });

  it('rejects invalid numbers', () => {
    assert.throws(() => charge(chargeRequest('4432-8015-6152-0455')), /Credit card info is invalid/);
  });

  it('rejects cards that expired last year', () => {
    const year = new Date().getFullYear() - 1;
    assert.throws(() => charge(chargeRequest(VISA, { month: 12, year })), /ending 0454\) expired on 12\//);
  });

  it('accepts a card in its expiration month', () => {
    const now = new Date();
    const req = chargeRequest(VISA, { month: now.getMonth() + 1, year: now.getFullYear() });
    assert.ok(charge(req).transaction_id);
  });
});

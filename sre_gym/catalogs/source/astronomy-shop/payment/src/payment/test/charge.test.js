const assert = require('assert');
const { charge } = require('../charge');

const VISA = '4432-8015-6152-0454';
const AMEX = '3714-496353-98431';

const order = (creditCardNumber, creditCardExpirationMonth, creditCardExpirationYear) => ({
  amount: { currencyCode: 'EUR', units: 42, nanos: 500000000 },
  creditCard: { creditCardNumber, creditCardCvv: 123, creditCardExpirationMonth, creditCardExpirationYear }
});

describe('charge()', () => {
  it('mints a transaction id for a valid card', async () => {
    const { transactionId } = await charge(order(VISA, 12, 2040));
    assert.match(transactionId, /^[0-9a-f-]{36}$/);
  });

  it('gives every charge its own transaction id', async () => {
    const first = await charge(order(VISA, 12, 2040));
    const second = await charge(order(VISA, 12, 2040));
    assert.notStrictEqual(first.transactionId, second.transactionId);
  });

  it('refuses cards that are past their expiry month', async () => {
    await assert.rejects(charge(order(VISA, 3, 2001)), /\(ending 0454\) expired on 3\/2001/);
  });

  it('refuses card networks other than VISA and MasterCard', async () => {
    await assert.rejects(charge(order(AMEX, 12, 2040)), /Only VISA or MasterCard is accepted/);
  });
});

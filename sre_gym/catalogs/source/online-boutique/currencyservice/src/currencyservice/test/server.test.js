const assert = require('assert');
const { _carry, _rate } = require('../server');
const rates = require('../data/currency_conversion.json');

describe('_carry', () => {
  it('carries nanos above one unit into units', () => {
    assert.deepStrictEqual(_carry({ units: 3, nanos: 2250000000 }), { units: 5, nanos: 250000000 });
  });

  it('turns the fraction of units into nanos', () => {
    assert.deepStrictEqual(_carry({ units: 7.25, nanos: 0 }), { units: 7, nanos: 250000000 });
  });

  it('leaves a normalised amount alone', () => {
    assert.deepStrictEqual(_carry({ units: 12, nanos: 990000000 }), { units: 12, nanos: 990000000 });
  });
});

describe('_rate', () => {
  it('parses the rate of a known currency', () => {
    assert.strictEqual(_rate({ USD: '1.25' }, 'USD'), 1.25);
  });

  it('rejects a currency missing from the table', () => {
    assert.throws(() => _rate({ USD: '1.25' }, 'XYZ'), /unsupported currency code/);
  });
});

describe('rate table', () => {
  it('quotes everything against EUR', () => {
    assert.strictEqual(rates.EUR, '1.0');
  });

  it('has every currency the frontend offers', () => {
    ['USD', 'EUR', 'CAD', 'JPY', 'GBP', 'TRY'].forEach((code) => {
      assert.ok(Number(rates[code]) > 0, `no rate for ${code}`);
    });
  });
});

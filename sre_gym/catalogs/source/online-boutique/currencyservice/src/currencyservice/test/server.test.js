/*
 * Copyright 2018 Google LLC.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

const assert = require('assert');
const { _carry } = require('../server');
const data = require('../data/currency_conversion.json');

describe('_carry', () => {
  it('moves whole units out of nanos', () => {
    const r = _carry({ units: 1, nanos: 1500000000 });
    assert.strictEqual(r.units, 2);
    assert.strictEqual(r.nanos, 500000000);
  });

  it('moves fractional units into nanos', () => {
    const r = _carry({ units: 2.5, nanos: 0 });
    assert.strictEqual(r.units, 2);
    assert.strictEqual(r.nanos, 500000000);
  });
});

describe('currency data', () => {
  it('is based on EUR', () => {
    assert.strictEqual(data.EUR, '1.0');
  });

  it('offers the currencies the frontend shows', () => {
    for (const c of ['USD', 'EUR', 'CAD', 'JPY', 'GBP', 'TRY']) {
      assert.ok(data[c], `missing ${c}`);
    }
  });
});

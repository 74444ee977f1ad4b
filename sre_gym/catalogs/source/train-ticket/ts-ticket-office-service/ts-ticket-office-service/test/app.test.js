const assert = require('assert');
const request = require('supertest');
const app = require('../app');

describe('POST /office/addOffice', () => {
  it('rejects an office without a name', async () => {
    const res = await request(app).post('/office/addOffice').send({ office: { city: 'Shanghai' } });
    assert.strictEqual(res.status, 400);
    assert.strictEqual(res.body.status, 0);
    assert.strictEqual(res.body.msg, 'office name required');
  });

  it('rejects a request without an office', async () => {
    const res = await request(app).post('/office/addOffice').send({});
    assert.strictEqual(res.status, 400);
  });
});

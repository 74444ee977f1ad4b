var assert = require('assert');
var request = require('supertest');
var app = require('../app');

describe('POST /office/addOffice', function () {
  it('rejects offices without a name', function (done) {
    request(app)
      .post('/office/addOffice')
      .send({ office: {} })
      .expect(400)
      .end(function (err, res) {
        if (err) return done(err);
        assert.strictEqual(res.body.msg, 'office name required');
        done();
      });
  });
});

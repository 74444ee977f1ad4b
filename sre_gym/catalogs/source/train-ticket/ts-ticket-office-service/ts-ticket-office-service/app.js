var express = require('express');
var bodyParser = require('body-parser');
var MongoClient = require('mongodb').MongoClient;

var app = express();
var DB_URL = 'mongodb://ts-ticket-office-mongo:27017/ts';
var COLLECTION = 'office';

app.use(bodyParser.json());
app.use(bodyParser.urlencoded({ extended: true }));

function withCollection (res, fn) {
  MongoClient.connect(DB_URL, { useNewUrlParser: true }, function (err, client) {
    if (err) {
      console.log('[ticket-office] mongo connect failed: ' + err.message);
      res.status(500).json({ status: 0, msg: 'database unavailable', data: null });
      return;
    }
    fn(client.db('ts').collection(COLLECTION), function () { client.close(); });
  });
}

app.get('/office/getRegionList', function (req, res) {
  withCollection(res, function (col, done) {
    col.distinct('province', {}, function (err, provinces) {
      done();
      if (err) {
        res.status(500).json({ status: 0, msg: err.message, data: null });
        return;
      }
      res.json({ status: 1, msg: 'success', data: provinces });
    });
  });
});

app.get('/office/getAll', function (req, res) {
  withCollection(res, function (col, done) {
    col.find({}).toArray(function (err, offices) {
      done();
      if (err) {
        res.status(500).json({ status: 0, msg: err.message, data: null });
        return;
      }
      res.json({ status: 1, msg: 'success', data: offices });
    });
  });
});

app.post('/office/getSpecificOffices', function (req, res) {
  var query = { province: req.body.province, city: req.body.city, region: req.body.region };
  withCollection(res, function (col, done) {
    col.find(query).toArray(function (err, offices) {
      done();
      if (err) {
        res.status(500).json({ status: 0, msg: err.message, data: null });
        return;
      }
      res.json({ status: 1, msg: 'success', data: offices });
    });
  });
});

app.post('/office/addOffice', function (req, res) {
  var office = req.body.office;
  if (!office || !office.name) {
    res.status(400).json({ status: 0, msg: 'office name required', data: null });
    return;
  }
  withCollection(res, function (col, done) {
    col.insertOne(office, function (err) {
      done();
      res.json({ status: err ? 0 : 1, msg: err ? err.message : 'success', data: null });
    });
  });
});

var server = app.listen(16108, function () {
  console.log('ticket office service listening on port ' + server.address().port);
});

module.exports = app;

const express = require('express');
const bodyParser = require('body-parser');
const { MongoClient } = require('mongodb');
const PORT = 16108;
const MONGO_URL = 'mongodb://ts-ticket-office-mongo:27017/ts';
const DB_NAME = 'ts';
const OFFICES = 'office';

const app = express();
app.use(bodyParser.json());
app.use(bodyParser.urlencoded({ extended: true }));

// Opens a client for one request; the handler calls release() once its query has answered.
function useOffices (res, work) {
  MongoClient.connect(MONGO_URL, { useNewUrlParser: true }, (err, client) => {
    if (err) {
      console.log(`[ticket-office] cannot reach mongo: ${err.message}`);
      res.status(500).json({ status: 0, msg: 'database unavailable', data: null });
      return;
    }
    const release = () => client.close();
    work(client.db(DB_NAME).collection(OFFICES), release);
  });
}

app.get('/office/getRegionList', (req, res) => {
  useOffices(res, (offices, release) => {
    offices.distinct('province', {}, (err, provinces) => {
      release();
      if (err) {
        res.status(500).json({ status: 0, msg: err.message, data: null });
        return;
      }
      res.json({ status: 1, msg: 'success', data: provinces });
    });
  });
});

function sendOffices (res, filter) {
  useOffices(res, (offices, release) => {
    offices.find(filter).toArray((err, found) => {
      release();
      if (err) {
        res.status(500).json({ status: 0, msg: err.message, data: null });
        return;
      }
      res.json({ status: 1, msg: 'success', data: found });
    });
  });
}

app.get('/office/getAll', (req, res) => {
  sendOffices(res, {});
});

app.post('/office/getSpecificOffices', (req, res) => {
  const { province, city, region } = req.body;
  sendOffices(res, { province, city, region });
});

app.post('/office/addOffice', (req, res) => {
  const office = req.body.office;
  if (!office || !office.name) {
    res.status(400).json({ status: 0, msg: 'office name required', data: null });
    return;
  }
  useOffices(res, (offices, release) => {
    offices.insertOne(office, (err) => {
      release();
      if (err) {
        res.json({ status: 0, msg: err.message, data: null });
        return;
      }
      res.json({ status: 1, msg: 'success', data: null });
    });
  });
});

if (require.main === module) {
  const server = app.listen(PORT, () => {
    console.log(`ticket office service listening on port ${server.address().port}`);
  });
}

module.exports = app;

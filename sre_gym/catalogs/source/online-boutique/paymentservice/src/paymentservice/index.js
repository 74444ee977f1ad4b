// Entry point of the payment service: optional profiler, then the gRPC server.

const path = require('path');
const HipsterShopServer = require('./server');

const PORT = process.env.PORT;
const PROTO_PATH = path.join(__dirname, '/proto/');

if (process.env.DISABLE_PROFILER) {
  console.log('Profiler disabled.');
} else {
  require('@google-cloud/profiler').start({
    serviceContext: {
      service: 'paymentservice',
      version: '1.0.0'
    }
  });
}

const server = new HipsterShopServer(PROTO_PATH, PORT);

server.listen();

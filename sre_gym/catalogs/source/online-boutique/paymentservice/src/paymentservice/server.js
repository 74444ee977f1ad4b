// gRPC server of the payment service: PaymentService.Charge plus the standard
// health check used by the kubelet's grpc probes.

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const pino = require('pino');

const charge = require('./charge');

const logger = pino({
  name: 'paymentservice-server',
  messageKey: 'message',
  formatters: {
    level: (label) => ({ severity: label })
  }
});

const LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true
};

class HipsterShopServer {
  constructor (protoRoot, port = HipsterShopServer.PORT) {
    this.port = port;
    this.server = new grpc.Server();
    this.packages = {
      hipsterShop: this.loadProto(path.join(protoRoot, 'demo.proto')),
      health: this.loadProto(path.join(protoRoot, 'grpc/health/v1/health.proto'))
    };
    this.loadAllProtos(protoRoot);
  }

  // PaymentService.Charge: card errors come back to the caller as the call's error.
  static ChargeServiceHandler (call, callback) {
    const { amount } = call.request;
    logger.info({ amount }, 'PaymentService#Charge invoked');
    let response;
    try {
      response = charge(call.request);
    } catch (err) {
      logger.warn({ err: err.message }, 'charge rejected');
      callback(err);
      return;
    }
    callback(null, response);
  }

  static CheckHandler (call, callback) {
    callback(null, { status: 'SERVING' });
  }

  loadProto (file) {
    return grpc.loadPackageDefinition(protoLoader.loadSync(file, LOADER_OPTIONS));
  }

  loadAllProtos () {
    const shop = this.packages.hipsterShop.hipstershop;
    const health = this.packages.health.grpc.health.v1;

    this.server.addService(shop.PaymentService.service, {
      charge: HipsterShopServer.ChargeServiceHandler
    });
    this.server.addService(health.Health.service, {
      check: HipsterShopServer.CheckHandler
    });
  }

  listen () {
    const address = `[::]:${this.port}`;
    this.server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, boundPort) => {
      if (err) {
        logger.error({ err: err.message }, `could not bind ${address}`);
        process.exit(1);
      }
      logger.info(`PaymentService gRPC server started on port ${boundPort}`);
    });
  }
}

HipsterShopServer.PORT = process.env.PORT;

module.exports = HipsterShopServer;

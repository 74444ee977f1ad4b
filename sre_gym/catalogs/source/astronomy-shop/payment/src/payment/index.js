// gRPC entry point of the payment service: oteldemo.PaymentService/Charge plus the standard
// health service, listening on PAYMENT_PORT.
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const health = require('grpc-js-health-check');
const opentelemetry = require('@opentelemetry/api');

const charge = require('./charge');
const logger = require('./logger');

const port = process.env['PAYMENT_PORT'];

// Money is units + nanos (billionths); the span attribute is the amount with two decimals.
const formatAmount = ({ units = 0, nanos = 0 }) => (Number(units) + nanos / 1e9).toFixed(2);

async function chargeServiceHandler (call, callback) {
  const span = opentelemetry.trace.getActiveSpan();
  const { amount } = call.request;
  span?.setAttribute('app.payment.amount', formatAmount(amount));
  logger.info({ request: call.request }, 'Charge request received.');

  let response;
  try {
    response = await charge.charge(call.request);
  } catch (err) {
    logger.warn({ err }, 'Charge failed.');
    span?.recordException(err);
    span?.setStatus({ code: opentelemetry.SpanStatusCode.ERROR, message: err.message });
    return callback(err);
  }
  callback(null, response);
}

const proto = grpc.loadPackageDefinition(protoLoader.loadSync('demo.proto'));
const server = new grpc.Server();

server.addService(health.service, new health.Implementation({ '': health.servingStatus.SERVING }));
server.addService(proto.oteldemo.PaymentService.service, { charge: chargeServiceHandler });

server.bindAsync(`0.0.0.0:${port}`, grpc.ServerCredentials.createInsecure(), (err, boundPort) => {
  if (err) {
    logger.error({ err }, 'payment gRPC server could not bind');
    process.exitCode = 1;
    return;
  }
  logger.info(`payment gRPC server started on port ${boundPort}`);
});

function shutdown (signal) {
  logger.info(`${signal} received, stopping the payment gRPC server`);
  server.forceShutdown();
  process.kill(process.pid, signal);
}

process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);

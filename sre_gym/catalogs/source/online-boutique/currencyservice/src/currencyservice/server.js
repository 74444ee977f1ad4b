// currencyservice: converts money between currencies using the ECB reference rates in
// data/currency_conversion.json (all rates are quoted against EUR).

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const pino = require('pino');

const PORT = process.env.PORT || '7000';
const NANOS_PER_UNIT = 1e9;

const PROTO_DIR = path.join(__dirname, 'proto');
const MAIN_PROTO_PATH = path.join(PROTO_DIR, 'demo.proto');
const HEALTH_PROTO_PATH = path.join(PROTO_DIR, 'grpc/health/v1/health.proto');

const logger = pino({
  name: 'currencyservice-server',
  messageKey: 'message',
  formatters: {
    level: (label) => ({ severity: label })
  }
});

function _loadProto (file) {
  const definition = protoLoader.loadSync(file, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true
  });
  return grpc.loadPackageDefinition(definition);
}

const shopProto = _loadProto(MAIN_PROTO_PATH).hipstershop;
const healthProto = _loadProto(HEALTH_PROTO_PATH).grpc.health.v1;

/**
 * The rate table: currency code -> units of that currency per euro, as strings.
 * require() parses the file once and keeps it for the life of the process.
 */
function _getCurrencyData () {
  return require('./data/currency_conversion.json');
}

/** The numeric rate of `code`, or an error for a currency the table does not have. */
function _rate (data, code) {
  const rate = Number(data[code]);
  if (!Number.isFinite(rate) || rate <= 0) {
    throw new Error(`unsupported currency code "${code}"`);
  }
  return rate;
}

/**
 * Normalises an amount whose units may be fractional and whose nanos may exceed one unit:
 * the fraction of units moves into nanos, whole units move out of nanos.
 */
function _carry (amount) {
  const fraction = amount.units % 1;
  const nanos = amount.nanos + fraction * NANOS_PER_UNIT;
  // trunc rather than floor: negative amounts keep units and nanos on the same side of zero
  const carried = Math.trunc(nanos / NANOS_PER_UNIT);
  amount.units = Math.trunc(amount.units) + carried;
  amount.nanos = nanos - carried * NANOS_PER_UNIT;
  return amount;
}

function getSupportedCurrencies (call, callback) {
  logger.info('Getting supported currencies...');
  const data = _getCurrencyData();
  callback(null, { currency_codes: Object.keys(data) });
}

function convert (call, callback) {
  const request = call.request;
  const from = request.from;
  const toCode = request.to_code;
  try {
    const data = _getCurrencyData();

    // source currency -> EUR
    const fromRate = _rate(data, from.currency_code);
    const euros = _carry({ units: from.units / fromRate, nanos: from.nanos / fromRate });
    euros.nanos = Math.round(euros.nanos);

    // EUR -> target currency
    const toRate = _rate(data, toCode);
    const result = _carry({ units: euros.units * toRate, nanos: euros.nanos * toRate });
    result.units = Math.floor(result.units);
    result.nanos = Math.floor(result.nanos);
    result.currency_code = toCode;

    logger.info('conversion request successful');
    callback(null, result);
  } catch (err) {
    logger.error(`conversion request failed: ${err}`);
    callback({ code: grpc.status.INTERNAL, message: err.message });
  }
}

function check (call, callback) {
  callback(null, { status: 'SERVING' });
}

function main () {
  if (process.env.DISABLE_PROFILER) {
    logger.info('profiler disabled (DISABLE_PROFILER is set)');
  } else {
    require('@google-cloud/profiler').start({
      serviceContext: { service: 'currencyservice', version: '1.0.0' }
    });
  }

  const server = new grpc.Server();
  server.addService(shopProto.CurrencyService.service, { getSupportedCurrencies, convert });
  server.addService(healthProto.Health.service, { check });

  logger.info(`Starting gRPC server on port ${PORT}...`);
  server.bindAsync(`[::]:${PORT}`, grpc.ServerCredentials.createInsecure(), (err, boundPort) => {
    if (err) {
      logger.error(`could not bind port ${PORT}: ${err}`);
      process.exit(1);
    }
    logger.info(`CurrencyService gRPC server started on port ${boundPort}`);
  });
}

// tests require this module for its helpers and must not start a server
if (require.main === module) {
  main();
}

module.exports = { _carry, _rate };

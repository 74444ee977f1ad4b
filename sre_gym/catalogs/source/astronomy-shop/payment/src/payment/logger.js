// Structured JSON logging (pino). Every record carries the active trace and span ids so that
// log lines can be joined with their traces.
const pino = require('pino');
const { trace } = require('@opentelemetry/api');

const serviceName = process.env['OTEL_SERVICE_NAME'] || 'payment';

const logger = pino({
  level: process.env['LOG_LEVEL'] || 'info',
  base: { 'service.name': serviceName },
  mixin () {
    const span = trace.getActiveSpan();
    if (!span) {
      return {};
    }
    const { traceId, spanId } = span.spanContext();
    return { trace_id: traceId, span_id: spanId };
  },
  formatters: {
    level: label => ({ level: label })
  },
  timestamp: pino.stdTimeFunctions.isoTime
});

module.exports = logger;

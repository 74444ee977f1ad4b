"""JSON logging for the recommendation service, with the active trace context on every record."""

import logging
import sys

from opentelemetry import trace
from pythonjsonlogger.json import JsonFormatter

LOG_FORMAT = "%(asctime)s %(levelname)s [%(name)s] [%(filename)s:%(lineno)d] - %(message)s"


class TraceContextFormatter(JsonFormatter):
    """Adds the ids of the current span (if any) to each JSON log record."""

    def add_fields(self, log_record, record, message_dict):
        super().add_fields(log_record, record, message_dict)
        ctx = trace.get_current_span().get_span_context()
        if ctx.is_valid:
            log_record["trace_id"] = trace.format_trace_id(ctx.trace_id)
            log_record["span_id"] = trace.format_span_id(ctx.span_id)


def getJSONLogger(name):
    logger = logging.getLogger(name)
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(TraceContextFormatter(LOG_FORMAT))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return logger

"""Email service of the boutique.

It renders the order confirmation mail from templates/confirmation.html. In dummy mode (the only
mode there is) nothing is sent: the service logs the recipient and the size of the rendered mail.
"""

import os
from concurrent import futures

import demo_pb2
import demo_pb2_grpc
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from jinja2 import Environment, FileSystemLoader, TemplateError, select_autoescape
from logger import getJSONLogger

logger = getJSONLogger("emailservice-server")

TEMPLATE_DIR = "templates"
CONFIRMATION_TEMPLATE = "confirmation.html"
RENDER_FAILED = "An error occurred when preparing the confirmation mail."

# Compiled once at startup and shared by all requests.
env = Environment(
    loader=FileSystemLoader(TEMPLATE_DIR), autoescape=select_autoescape(["html", "xml"])
)
template = env.get_template(CONFIRMATION_TEMPLATE)


class BaseEmailService(demo_pb2_grpc.EmailServiceServicer):
    """The email servicer; it answers the gRPC health protocol on the same port."""

    def Check(self, request, context):
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    def Watch(self, request, context):
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details("Watch is not supported, poll Check instead.")
        return health_pb2.HealthCheckResponse()


class DummyEmailService(BaseEmailService):
    """Renders confirmations but does not hand them to a mail server."""

    def SendOrderConfirmation(self, request, context):
        email = request.email
        order = request.order
        try:
            confirmation = template.render(order=order)
        except TemplateError as err:
            return self._render_failed(context, order, err)

        self._deliver(email, confirmation)
        return demo_pb2.Empty()

    def _deliver(self, email, body):
        # dummy mode: report what would have been sent
        logger.info(
            f"A request to send order confirmation email to {email} has been received "
            f"({len(body)} bytes)."
        )

    @staticmethod
    def _render_failed(context, order, err):
        logger.error(f"confirmation for order {order.order_id} could not be rendered: {err}")
        context.set_code(grpc.StatusCode.INTERNAL)
        context.set_details(RENDER_FAILED)
        return demo_pb2.Empty()


def start(dummy_mode):
    if not dummy_mode:
        raise NotImplementedError("only dummy mode exists: confirmations are rendered, not sent")

    service = DummyEmailService()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=10))
    demo_pb2_grpc.add_EmailServiceServicer_to_server(service, server)
    health_pb2_grpc.add_HealthServicer_to_server(service, server)

    port = os.environ.get("PORT", "8080")
    server.add_insecure_port(f"[::]:{port}")
    server.start()
    logger.info(f"listening on port: {port}")
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(grace=None)


if __name__ == "__main__":
    if os.environ.get("DISABLE_PROFILER"):
        logger.info("profiler disabled (DISABLE_PROFILER is set)")
    logger.info("starting the email service in dummy mode.")
    start(dummy_mode=True)

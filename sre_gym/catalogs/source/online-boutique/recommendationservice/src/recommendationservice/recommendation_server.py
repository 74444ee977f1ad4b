#!/usr/bin/python
"""RecommendationService: suggests catalog products the shopper is not already looking at.

Candidates are the product catalog minus the products named in the request; a random handful of
them (at most MAX_RESPONSES) is returned.
"""

import os
import random
from concurrent import futures

import demo_pb2
import demo_pb2_grpc
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from logger import getJSONLogger

logger = getJSONLogger("recommendationservice-server")

MAX_RESPONSES = 5

# ProductCatalogService client, created by serve() (the unit tests install a fake one).
product_catalog_stub = None


class RecommendationService(demo_pb2_grpc.RecommendationServiceServicer):
    """hipstershop.RecommendationService plus the standard gRPC health service."""

    def ListRecommendations(self, request, context):
        catalog = product_catalog_stub.ListProducts(demo_pb2.Empty())
        candidates = sorted({product.id for product in catalog.products} - set(request.product_ids))
        count = min(MAX_RESPONSES, len(candidates))
        chosen = random.sample(candidates, count)
        logger.info(f"[Recv ListRecommendations] product_ids={chosen}")
        return demo_pb2.ListRecommendationsResponse(product_ids=chosen)

    def Check(self, request, context):
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    def Watch(self, request, context):
        return health_pb2.HealthCheckResponse(
            status=health_pb2.HealthCheckResponse.UNIMPLEMENTED
        )


def serve():
    global product_catalog_stub

    port = os.environ.get("PORT", "8080")
    catalog_addr = os.environ.get("PRODUCT_CATALOG_SERVICE_ADDR")
    if not catalog_addr:
        raise SystemExit("PRODUCT_CATALOG_SERVICE_ADDR environment variable not set")
    logger.info(f"product catalog address: {catalog_addr}")
    product_catalog_stub = demo_pb2_grpc.ProductCatalogServiceStub(
        grpc.insecure_channel(catalog_addr)
    )

    service = RecommendationService()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=10))
    demo_pb2_grpc.add_RecommendationServiceServicer_to_server(service, server)
    health_pb2_grpc.add_HealthServicer_to_server(service, server)
    server.add_insecure_port(f"[::]:{port}")
    server.start()
    logger.info(f"listening on port: {port}")
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(grace=None)


if __name__ == "__main__":
    logger.info("initializing recommendationservice")
    serve()

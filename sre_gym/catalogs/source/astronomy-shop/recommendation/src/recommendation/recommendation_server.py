#!/usr/bin/python
"""Recommendation service.

Answers oteldemo.RecommendationService/ListRecommendations with up to five products from the
catalog, never one the shopper is already looking at. Product ids come from the product catalog
over gRPC. With the recommendationCacheFailure flag on, ids are served from an in-process
"cache" that grows on every miss: the memory leak the flag demonstrates.
"""

import os
import random
from concurrent import futures

import demo_pb2
import demo_pb2_grpc
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from logger import getJSONLogger
from metrics import init_metrics
from openfeature import api
from openfeature.contrib.provider.flagd import FlagdProvider
from opentelemetry import metrics, trace

MAX_RECOMMENDATIONS = 5
CACHE_FLAG = "recommendationCacheFailure"

# state of the leaky cache (recommendationCacheFailure)
cached_ids = []
first_run = True

# wired up in serve(); module globals so that the tests can swap them for mocks
tracer = None
logger = None
rec_svc_metrics = None
product_catalog_stub = None


class RecommendationService(demo_pb2_grpc.RecommendationServiceServicer):
    def ListRecommendations(self, request, context):
        prod_list = get_product_list(request.product_ids)
        trace.get_current_span().set_attribute("app.products_recommended.count", len(prod_list))
        logger.info(f"Recommending {prod_list} for request ids {list(request.product_ids)}")

        rec_svc_metrics["app_recommendations_counter"].add(
            len(prod_list), {"recommendation.type": "catalog"}
        )
        return demo_pb2.ListRecommendationsResponse(product_ids=prod_list)

    # grpc.health.v1 on the same servicer
    def Check(self, request, context):
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    def Watch(self, request, context):
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.UNIMPLEMENTED)


def parse_request_ids(raw_ids):
    """Product ids of the request; they may arrive as one comma-separated string."""
    return {pid.strip() for pid in "".join(raw_ids).split(",") if pid.strip()}


def fetch_catalog_ids():
    response = product_catalog_stub.ListProducts(demo_pb2.Empty())
    return [product.id for product in response.products]


def ids_from_leaky_cache(span):
    """Catalog ids through the broken cache: every miss appends the catalog again, plus a
    quarter of what was already cached, so the list only ever grows."""
    global first_run
    if first_run or random.random() < 0.5:
        first_run = False
        span.set_attribute("app.cache_hit", False)
        logger.info("get_product_list: cache miss")
        cached_ids.extend(fetch_catalog_ids())
        cached_ids.extend(cached_ids[: len(cached_ids) // 4])
    else:
        span.set_attribute("app.cache_hit", True)
        logger.info("get_product_list: cache hit")
    return cached_ids


def get_product_list(request_product_ids):
    with tracer.start_as_current_span("get_product_list") as span:
        excluded = parse_request_ids(request_product_ids)

        cache_enabled = check_feature_flag(CACHE_FLAG)
        span.set_attribute("app.recommendation.cache_enabled", cache_enabled)
        if cache_enabled:
            product_ids = ids_from_leaky_cache(span)
        else:
            product_ids = fetch_catalog_ids()
        span.set_attribute("app.products.count", len(product_ids))

        # distinct ids in catalog order, minus what the shopper already has
        candidates = [pid for pid in dict.fromkeys(product_ids) if pid not in excluded]
        span.set_attribute("app.filtered_products.count", len(candidates))

        picks = random.sample(candidates, min(MAX_RECOMMENDATIONS, len(candidates)))
        span.set_attribute("app.filtered_products.list", picks)
        return picks


def check_feature_flag(flag_name: str) -> bool:
    return api.get_client().get_boolean_value(flag_name, False)


def serve():
    global tracer, logger, rec_svc_metrics, product_catalog_stub

    service_name = os.environ.get("OTEL_SERVICE_NAME", "recommendation")
    tracer = trace.get_tracer_provider().get_tracer(service_name)
    rec_svc_metrics = init_metrics(metrics.get_meter_provider().get_meter(service_name))
    logger = getJSONLogger("recommendation-server")

    api.set_provider(
        FlagdProvider(
            host=os.environ.get("FLAGD_HOST", "flagd"),
            port=int(os.environ.get("FLAGD_PORT", "8013")),
        )
    )

    catalog_addr = os.environ.get("PRODUCT_CATALOG_ADDR")
    if not catalog_addr:
        raise RuntimeError("PRODUCT_CATALOG_ADDR environment variable must be set")
    logger.info(f"product catalog address: {catalog_addr}")
    product_catalog_stub = demo_pb2_grpc.ProductCatalogServiceStub(grpc.insecure_channel(catalog_addr))

    servicer = RecommendationService()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=10))
    demo_pb2_grpc.add_RecommendationServiceServicer_to_server(servicer, server)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)

    port = os.environ.get("RECOMMENDATION_PORT", "8080")
    server.add_insecure_port(f"[::]:{port}")
    server.start()
    logger.info(f"Recommendation service started, listening on port {port}")
    server.wait_for_termination()


if __name__ == "__main__":
    serve()

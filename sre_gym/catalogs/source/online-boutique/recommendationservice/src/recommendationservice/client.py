#!/usr/bin/python
"""Asks a running recommendation service for suggestions; for manual testing.

    python client.py [port]
"""

import sys

import demo_pb2
import demo_pb2_grpc
import grpc
from logger import getJSONLogger

logger = getJSONLogger("recommendationservice-client")

if __name__ == "__main__":
    port = sys.argv[1] if len(sys.argv) > 1 else "8080"
    channel = grpc.insecure_channel(f"localhost:{port}")
    stub = demo_pb2_grpc.RecommendationServiceStub(channel)
    request = demo_pb2.ListRecommendationsRequest(user_id="test", product_ids=["test"])
    response = stub.ListRecommendations(request)
    logger.info(response)

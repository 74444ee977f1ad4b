"""Unit tests of ListRecommendations against a fake product catalog."""

import unittest
from unittest import mock

import demo_pb2
import recommendation_server

CATALOG_IDS = [
    "OLJCESPC7Z",
    "66VCHSJNUP",
    "1YMWWN1N4O",
    "L9ECAV7KIM",
    "2ZYFJ3GM2N",
    "0PUK6V6EV0",
    "LS4PSXUNUM",
]


def fake_catalog(ids):
    stub = mock.Mock()
    stub.ListProducts.return_value = demo_pb2.ListProductsResponse(
        products=[demo_pb2.Product(id=pid, name=pid.lower()) for pid in ids]
    )
    return stub


class ListRecommendationsTest(unittest.TestCase):
    def setUp(self):
        patcher = mock.patch.object(
            recommendation_server, "product_catalog_stub", fake_catalog(CATALOG_IDS)
        )
        patcher.start()
        self.addCleanup(patcher.stop)
        self.service = recommendation_server.RecommendationService()

    def recommend(self, *product_ids):
        req = demo_pb2.ListRecommendationsRequest(user_id="u-1", product_ids=list(product_ids))
        return list(self.service.ListRecommendations(req, mock.Mock()).product_ids)

    def test_excludes_requested_products(self):
        for _ in range(20):
            self.assertNotIn("OLJCESPC7Z", self.recommend("OLJCESPC7Z"))

    def test_returns_at_most_five(self):
        got = self.recommend()
        self.assertEqual(len(got), recommendation_server.MAX_RESPONSES)
        self.assertEqual(len(set(got)), len(got))

    def test_small_catalog_returns_what_is_left(self):
        recommendation_server.product_catalog_stub = fake_catalog(["A", "B"])
        self.assertEqual(self.recommend("A"), ["B"])


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/python
#
# Copyright 2018 Google LLC
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

import unittest
from unittest import mock

import demo_pb2
import recommendation_server

CATALOG = ["OLJCESPC7Z", "66VCHSJNUP", "1YMWWN1N4O", "L9ECAV7KIM", "2ZYFJ3GM2N", "0PUK6V6EV0"]


class ListRecommendationsTest(unittest.TestCase):
    def setUp(self):
        stub = mock.MagicMock()
        stub.ListProducts.return_value = demo_pb2.ListProductsResponse(
            products=[demo_pb2.Product(id=i) for i in CATALOG]
        )
        recommendation_server.product_catalog_stub = stub
        self.service = recommendation_server.RecommendationService()

    def test_excludes_requested_products(self):
        req = demo_pb2.ListRecommendationsRequest(user_id="u", product_ids=["OLJCESPC7Z"])
        resp = self.service.ListRecommendations(req, None)
        self.assertNotIn("OLJCESPC7Z", resp.product_ids)

    def test_returns_at_most_five(self):
        req = demo_pb2.ListRecommendationsRequest(user_id="u", product_ids=[])
        resp = self.service.ListRecommendations(req, None)
        self.assertLessEqual(len(resp.product_ids), 5)


if __name__ == "__main__":
    unittest.main()

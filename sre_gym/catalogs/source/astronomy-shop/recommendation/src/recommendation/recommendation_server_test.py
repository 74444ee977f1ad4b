# Copyright The OpenTelemetry Authors
# SPDX-License-Identifier: Apache-2.0

import unittest
from unittest import mock

import demo_pb2
import recommendation_server as rs

IDS = ["OLJCESPC7Z", "66VCHSJNUP", "1YMWWN1N4O", "L9ECAV7KIM", "2ZYFJ3GM2N", "0PUK6V6EV0"]


class GetProductListTest(unittest.TestCase):
    def setUp(self):
        rs.tracer = mock.MagicMock()
        rs.logger = mock.MagicMock()
        rs.check_feature_flag = mock.MagicMock(return_value=False)
        stub = mock.MagicMock()
        stub.ListProducts.return_value = demo_pb2.ListProductsResponse(
            products=[demo_pb2.Product(id=i) for i in IDS]
        )
        rs.product_catalog_stub = stub

    def test_excludes_requested_product(self):
        self.assertNotIn("OLJCESPC7Z", rs.get_product_list(["OLJCESPC7Z"]))

    def test_at_most_five(self):
        self.assertLessEqual(len(rs.get_product_list([])), 5)


if __name__ == "__main__":
    unittest.main()

import unittest
from unittest import mock

import demo_pb2
import recommendation_server as rs

CATALOG = ["OLJCESPC7Z", "66VCHSJNUP", "1YMWWN1N4O", "L9ECAV7KIM", "2ZYFJ3GM2N", "0PUK6V6EV0", "LS4PSXUNUM"]


class GetProductListTest(unittest.TestCase):
    def setUp(self):
        patches = {
            "tracer": mock.MagicMock(),
            "logger": mock.MagicMock(),
            "product_catalog_stub": mock.MagicMock(),
            "check_feature_flag": mock.MagicMock(return_value=False),
        }
        for name, value in patches.items():
            patcher = mock.patch.object(rs, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)
        rs.product_catalog_stub.ListProducts.return_value = demo_pb2.ListProductsResponse(
            products=[demo_pb2.Product(id=pid) for pid in CATALOG]
        )

    def test_excludes_requested_product(self):
        for _ in range(20):
            self.assertNotIn("OLJCESPC7Z", rs.get_product_list(["OLJCESPC7Z"]))

    def test_excludes_comma_separated_ids(self):
        picks = rs.get_product_list(["OLJCESPC7Z,66VCHSJNUP"])
        self.assertFalse({"OLJCESPC7Z", "66VCHSJNUP"} & set(picks))

    def test_at_most_five_distinct(self):
        picks = rs.get_product_list([])
        self.assertLessEqual(len(picks), rs.MAX_RECOMMENDATIONS)
        self.assertEqual(len(picks), len(set(picks)))

    def test_small_catalog_returns_everything_else(self):
        rs.product_catalog_stub.ListProducts.return_value = demo_pb2.ListProductsResponse(
            products=[demo_pb2.Product(id=pid) for pid in CATALOG[:3]]
        )
        self.assertCountEqual(rs.get_product_list([CATALOG[0]]), CATALOG[1:3])


if __name__ == "__main__":
    unittest.main()

import unittest
from unittest import mock

import server

ORDER_REPLY = b'{"status": 1, "data": {"id": "4d2a46c7"}}'


class QueryOrderTest(unittest.TestCase):
    @mock.patch.object(server.http, "request", return_value=mock.Mock(data=ORDER_REPLY))
    def test_routes_other_trains_to_order_other(self, request):
        self.assertEqual(server.query_order("4d2a46c7", 1), {"id": "4d2a46c7"})
        method, url = request.call_args[0]
        self.assertEqual(method, "GET")
        self.assertTrue(url.startswith("http://ts-order-other-service:12032/"))

    @mock.patch.object(server.http, "request", return_value=mock.Mock(data=ORDER_REPLY))
    def test_routes_high_speed_to_order(self, request):
        server.query_order("4d2a46c7", server.HIGH_SPEED)
        self.assertTrue(request.call_args[0][1].endswith("/orderservice/order/4d2a46c7"))


class FindOrCreateTest(unittest.TestCase):
    def test_existing_voucher_is_returned(self):
        conn = mock.MagicMock()
        cursor = conn.cursor.return_value.__enter__.return_value
        cursor.fetchone.return_value = {"order_id": "4d2a46c7"}
        with mock.patch.object(server, "query_order") as query_order:
            self.assertEqual(server.find_or_create(conn, "4d2a46c7", 0), {"order_id": "4d2a46c7"})
        query_order.assert_not_called()
        conn.commit.assert_not_called()


if __name__ == "__main__":
    unittest.main()

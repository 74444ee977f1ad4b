import unittest
from unittest import mock

import server


class QueryOrderTest(unittest.TestCase):
    @mock.patch.object(server.http, "request")
    def test_routes_other_trains_to_order_other(self, request):
        request.return_value = mock.Mock(data=b'{"data": {"id": "1"}}')
        server.query_order("1", 1)
        url = request.call_args[0][1]
        self.assertIn("ts-order-other-service:12032", url)

    @mock.patch.object(server.http, "request")
    def test_routes_high_speed_to_order(self, request):
        request.return_value = mock.Mock(data=b'{"data": {"id": "1"}}')
        server.query_order("1", 0)
        self.assertIn("ts-order-service:12031", request.call_args[0][1])


if __name__ == "__main__":
    unittest.main()

import unittest
from unittest import mock

import demo_pb2
import email_server


def _order(**overrides):
    fields = dict(
        order_id="ord-7f3e",
        shipping_tracking_id="TR-2291-0043",
        shipping_cost=demo_pb2.Money(currency_code="EUR", units=5, nanos=490000000),
        items=[
            demo_pb2.OrderItem(
                item=demo_pb2.CartItem(product_id="OLJCESPC7Z", quantity=2),
                cost=demo_pb2.Money(currency_code="EUR", units=17, nanos=990000000),
            )
        ],
    )
    fields.update(overrides)
    return demo_pb2.OrderResult(**fields)


class SendOrderConfirmationTest(unittest.TestCase):
    def setUp(self):
        self.service = email_server.DummyEmailService()
        self.context = mock.MagicMock()

    def _send(self, order):
        req = demo_pb2.SendOrderConfirmationRequest(email="buyer@example.com", order=order)
        return self.service.SendOrderConfirmation(req, self.context)

    def test_sends_without_error(self):
        self.assertIsInstance(self._send(_order()), demo_pb2.Empty)
        self.context.set_code.assert_not_called()

    def test_mail_shows_order_and_prices(self):
        html = email_server.template.render(order=_order())
        self.assertIn("ord-7f3e", html)
        self.assertIn("TR-2291-0043", html)
        self.assertIn("17.99 EUR", html)
        self.assertIn("5.49 EUR", html)

    def test_health_check_serving(self):
        resp = self.service.Check(None, self.context)
        self.assertEqual(resp.status, email_server.health_pb2.HealthCheckResponse.SERVING)


if __name__ == "__main__":
    unittest.main()

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
import email_server


class SendOrderConfirmationTest(unittest.TestCase):
    def setUp(self):
        self.service = email_server.DummyEmailService()
        self.order = demo_pb2.OrderResult(
            order_id="a1b2c3",
            shipping_tracking_id="SM-123-4567",
            shipping_cost=demo_pb2.Money(currency_code="USD", units=8, nanos=990000000),
        )

    def test_renders_confirmation(self):
        ctx = mock.MagicMock()
        req = demo_pb2.SendOrderConfirmationRequest(email="someone@example.com", order=self.order)
        self.assertIsInstance(self.service.SendOrderConfirmation(req, ctx), demo_pb2.Empty)
        ctx.set_code.assert_not_called()

    def test_health_check_serving(self):
        resp = self.service.Check(None, None)
        self.assertEqual(resp.status, email_server.health_pb2.HealthCheckResponse.SERVING)


if __name__ == "__main__":
    unittest.main()

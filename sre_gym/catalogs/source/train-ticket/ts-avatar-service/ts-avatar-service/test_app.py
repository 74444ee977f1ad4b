import base64
import unittest

import app as service


class AvatarTest(unittest.TestCase):
    def setUp(self):
        self.client = service.app.test_client()

    def post(self, body):
        return self.client.post("/api/v1/avatar", json=body)

    def test_missing_image(self):
        resp = self.post({})
        self.assertEqual(resp.status_code, 400)
        self.assertEqual(resp.get_json()["msg"], "no image")

    def test_rejects_large_image(self):
        too_big = base64.b64encode(b"\xff" * (service.MAX_IMAGE_BYTES + 1)).decode()
        resp = self.post({"img": too_big})
        self.assertEqual(resp.status_code, 400)
        self.assertEqual(resp.get_json()["msg"], "image too large")

    def test_rejects_garbage(self):
        resp = self.post({"img": "not base64 at all!"})
        self.assertEqual(resp.status_code, 400)

    def test_health(self):
        self.assertEqual(self.client.get("/api/v1/avatar/health").get_json()["status"], 1)


if __name__ == "__main__":
    unittest.main()

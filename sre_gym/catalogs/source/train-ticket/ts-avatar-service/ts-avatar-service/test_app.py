import base64
import unittest

import app as avatar


class AvatarTest(unittest.TestCase):
    def setUp(self):
        self.client = avatar.app.test_client()

    def test_missing_image(self):
        resp = self.client.post("/api/v1/avatar", json={})
        self.assertEqual(resp.status_code, 400)

    def test_rejects_large_image(self):
        data = base64.b64encode(b"0" * (avatar.MAX_IMAGE_BYTES + 1)).decode()
        resp = self.client.post("/api/v1/avatar", json={"img": data})
        self.assertEqual(resp.status_code, 400)


if __name__ == "__main__":
    unittest.main()

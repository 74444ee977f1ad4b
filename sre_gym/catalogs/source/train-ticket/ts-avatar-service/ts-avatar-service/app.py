import base64
import logging
import os

import cv2
import numpy as np
from flask import Flask, jsonify, request

app = Flask(__name__)
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
logger = logging.getLogger("ts-avatar-service")

CASCADE_PATH = os.path.join(cv2.data.haarcascades, "haarcascade_frontalface_default.xml")
face_cascade = cv2.CascadeClassifier(CASCADE_PATH)
MAX_IMAGE_BYTES = 2 * 1024 * 1024


def decode_image(data):
    raw = base64.b64decode(data)
    if len(raw) > MAX_IMAGE_BYTES:
        raise ValueError("image too large")
    arr = np.frombuffer(raw, dtype=np.uint8)
    return cv2.imdecode(arr, cv2.IMREAD_COLOR)


def crop_face(img):
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    faces = face_cascade.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=5, minSize=(30, 30))
    if len(faces) == 0:
        return None
    x, y, w, h = max(faces, key=lambda f: f[2] * f[3])
    return img[y : y + h, x : x + w]


@app.route("/api/v1/avatar", methods=["POST"])
def upload_avatar():
    body = request.get_json(silent=True) or {}
    if "img" not in body:
        return jsonify({"status": 0, "msg": "no image", "data": None}), 400
    try:
        img = decode_image(body["img"])
    except ValueError as e:
        return jsonify({"status": 0, "msg": str(e), "data": None}), 400
    if img is None:
        return jsonify({"status": 0, "msg": "not an image", "data": None}), 400
    face = crop_face(img)
    if face is None:
        logger.info("no face found in avatar upload")
        return jsonify({"status": 0, "msg": "no face detected", "data": None})
    ok, buf = cv2.imencode(".jpg", face)
    data = base64.b64encode(buf.tobytes()).decode("ascii")
    logger.info("avatar cropped to %dx%d", face.shape[1], face.shape[0])
    return jsonify({"status": 1, "msg": "success", "data": data})


@app.route("/api/v1/avatar/health", methods=["GET"])
def health():
    return jsonify({"status": 1, "msg": "ok", "data": None})


if __name__ == "__main__":
    app.run(host="0.0.0.0", port=17001)

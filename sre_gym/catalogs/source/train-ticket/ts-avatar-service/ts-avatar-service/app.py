"""ts-avatar-service: cuts the user's face out of an uploaded profile picture."""
import base64
import binascii
import logging
import os

import cv2
import numpy as np
from flask import Flask, jsonify, request

PORT = 17001
MAX_IMAGE_BYTES = 2 * 1024 * 1024  # decoded uploads above 2 MiB are refused

# Haar cascade search: step between scales, votes a box needs, smallest face in pixels.
SCALE_FACTOR = 1.1
MIN_NEIGHBORS = 5
MIN_FACE = (30, 30)

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("ts-avatar-service")

app = Flask(__name__)
detector = cv2.CascadeClassifier(os.path.join(cv2.data.haarcascades, "haarcascade_frontalface_default.xml"))


class BadUpload(ValueError):
    """The request does not carry a usable picture."""


def reply(status, msg, data=None, code=200):
    return jsonify({"status": status, "msg": msg, "data": data}), code


def load_picture(encoded):
    """Base64 text -> BGR image array; raises BadUpload for anything unusable."""
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, TypeError, ValueError) as exc:
        raise BadUpload("image is not valid base64") from exc
    if len(raw) > MAX_IMAGE_BYTES:
        raise BadUpload("image too large")
    picture = cv2.imdecode(np.frombuffer(raw, dtype=np.uint8), cv2.IMREAD_COLOR)
    if picture is None:
        raise BadUpload("not an image")
    return picture


def biggest_face(picture):
    """The largest detected face as a sub-image, or None when there is no face."""
    gray = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    found = detector.detectMultiScale(
        gray, scaleFactor=SCALE_FACTOR, minNeighbors=MIN_NEIGHBORS, minSize=MIN_FACE
    )
    if len(found) == 0:
        return None
    x, y, w, h = sorted(found, key=lambda box: box[2] * box[3])[-1]
    return picture[y:y + h, x:x + w]


@app.route("/api/v1/avatar", methods=["POST"])
def upload_avatar():
    payload = request.get_json(silent=True) or {}
    encoded = payload.get("img")
    if not encoded:
        return reply(0, "no image", code=400)
    try:
        picture = load_picture(encoded)
    except BadUpload as exc:
        return reply(0, str(exc), code=400)

    face = biggest_face(picture)
    if face is None:
        log.info("no face found in avatar upload")
        return reply(0, "no face detected")
    ok, jpeg = cv2.imencode(".jpg", face)
    if not ok:
        log.error("could not encode the cropped face")
        return reply(0, "encoding failed", code=500)
    log.info("avatar cropped to %dx%d", face.shape[1], face.shape[0])
    return reply(1, "success", base64.b64encode(jpeg.tobytes()).decode("ascii"))


@app.route("/api/v1/avatar/health", methods=["GET"])
def health():
    return reply(1, "ok")


if __name__ == "__main__":
    app.run(host="0.0.0.0", port=PORT)

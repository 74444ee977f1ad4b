"""ts-voucher-service: printable travel vouchers for paid orders, stored in ts-voucher-mysql.

A voucher is created the first time it is asked for, from the order it belongs to.
"""
import json
import logging

import pymysql
import tornado.ioloop
import tornado.web
import urllib3

PORT = 16101

HIGH_SPEED = 0  # order type of G/D trains; every other type is sold by ts-order-other-service
HIGH_SPEED_ORDER_URL = "http://ts-order-service:12031/api/v1/orderservice/order/"
OTHER_ORDER_URL = "http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther/"
ORDER_TIMEOUT_S = 5.0

MYSQL_CONFIG = dict(
    host="ts-voucher-mysql",
    port=3306,
    user="root",
    password="root",
    db="voucherservice",
    charset="utf8",
)

SELECT_VOUCHER = "SELECT * FROM voucher WHERE order_id = %s"
INSERT_VOUCHER = (
    "INSERT INTO voucher (order_id, travelDate, travelTime, contactName, trainNumber, seatClass, "
    "seatNumber, startStation, destStation, price) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger("ts-voucher-service")
http = urllib3.PoolManager()


def connect():
    return pymysql.connect(**MYSQL_CONFIG)


def query_order(order_id, order_type):
    """The order a voucher is for, from the order service that sold it."""
    base = HIGH_SPEED_ORDER_URL if order_type == HIGH_SPEED else OTHER_ORDER_URL
    resp = http.request("GET", base + order_id, timeout=ORDER_TIMEOUT_S)
    return json.loads(resp.data.decode("utf-8"))["data"]


def voucher_row(order_id, order):
    """Values of a new voucher row, in the column order of INSERT_VOUCHER."""
    return (
        order_id,
        order["travelDate"],
        order["travelTime"],
        order["contactsName"],
        order["trainNumber"],
        order["seatClass"],
        order["seatNumber"],
        order["from"],
        order["to"],
        order["price"],
    )


def find_or_create(conn, order_id, order_type):
    with conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute(SELECT_VOUCHER, (order_id,))
        row = cur.fetchone()
        if row is not None:
            return row
        logger.info("no voucher for order %s yet, creating it", order_id)
        cur.execute(INSERT_VOUCHER, voucher_row(order_id, query_order(order_id, order_type)))
        conn.commit()
        cur.execute(SELECT_VOUCHER, (order_id,))
        return cur.fetchone()


class GetVoucherHandler(tornado.web.RequestHandler):
    def post(self):
        body = json.loads(self.request.body)
        conn = connect()
        try:
            voucher = find_or_create(conn, body["orderId"], int(body["type"]))
        finally:
            conn.close()
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps(voucher, default=str))


def make_app():
    return tornado.web.Application([(r"/getVoucher", GetVoucherHandler)])


if __name__ == "__main__":
    make_app().listen(PORT)
    logger.info("voucher service listening on %d", PORT)
    tornado.ioloop.IOLoop.current().start()

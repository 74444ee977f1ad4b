import json
import logging

import pymysql
import tornado.ioloop
import tornado.web
import urllib3

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger("ts-voucher-service")
http = urllib3.PoolManager()

MYSQL_CONFIG = {
    "host": "ts-voucher-mysql",
    "port": 3306,
    "user": "root",
    "password": "root",
    "db": "voucherservice",
    "charset": "utf8",
}


def connect():
    return pymysql.connect(**MYSQL_CONFIG)


def query_order(order_id, order_type):
    if order_type == 0:
        url = "http://ts-order-service:12031/api/v1/orderservice/order/" + order_id
    else:
        url = "http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther/" + order_id
    resp = http.request("GET", url, timeout=5.0)
    return json.loads(resp.data.decode("utf-8"))["data"]


class GetVoucherHandler(tornado.web.RequestHandler):
    def post(self, *args, **kwargs):
        data = json.loads(self.request.body)
        order_id = data["orderId"]
        order_type = int(data["type"])
        conn = connect()
        try:
            with conn.cursor(pymysql.cursors.DictCursor) as cursor:
                cursor.execute("SELECT * FROM voucher WHERE order_id = %s", (order_id,))
                voucher = cursor.fetchone()
                if voucher is None:
                    order = query_order(order_id, order_type)
                    cursor.execute(
                        "INSERT INTO voucher (order_id, travelDate, travelTime, contactName, trainNumber, seatClass, seatNumber, startStation, destStation, price) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                        (
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
                        ),
                    )
                    conn.commit()
                    cursor.execute("SELECT * FROM voucher WHERE order_id = %s", (order_id,))
                    voucher = cursor.fetchone()
            self.write(json.dumps(voucher, default=str))
        finally:
            conn.close()


def make_app():
    return tornado.web.Application([(r"/getVoucher", GetVoucherHandler)])


if __name__ == "__main__":
    app = make_app()
    app.listen(16101)
    logger.info("voucher service listening on 16101")
    tornado.ioloop.IOLoop.current().start()

package cancel.service;

import cancel.entity.NotifyInfo;
import cancel.entity.Order;
import cancel.entity.OrderStatus;
import cancel.entity.SeatClass;
import cancel.entity.User;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

import java.text.DecimalFormat;
import java.util.Calendar;
import java.util.Date;

/**
 * Cancels orders of high-speed trains: marks the order cancelled, refunds part of the price to
 * the passenger's inside-payment account and mails a confirmation.
 */
@Service
public class CancelServiceImpl implements CancelService {

    private static final Logger LOGGER = LoggerFactory.getLogger(CancelServiceImpl.class);

    private static final String ORDER_URL = "http://ts-order-service:12031/api/v1/orderservice/order";
    private static final String DRAWBACK_URL = "http://ts-inside-payment-service:18673/api/v1/inside_pay_service/inside_payment/drawback/";
    private static final String USER_BY_ID_URL = "http://ts-user-service:12342/api/v1/userservice/users/id/";
    private static final String CANCEL_MAIL_URL = "http://ts-notification-service:17853/api/v1/notifyservice/notification/order_cancel_success";

    /** Share of the ticket price returned when an order is cancelled before departure. */
    private static final double REFUND_RATE = 0.8;

    private static final ParameterizedTypeReference<Response<Order>> ONE_ORDER =
            new ParameterizedTypeReference<Response<Order>>() { };
    private static final ParameterizedTypeReference<Response<User>> ONE_USER =
            new ParameterizedTypeReference<Response<User>>() { };

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response cancelOrder(String orderId, String loginId, HttpHeaders headers) {
        Response<Order> lookup = getOrderByIdFromOrder(orderId, headers);
        if (lookup == null || lookup.getStatus() == null || lookup.getStatus() != 1) {
            return new Response<>(0, "Order Not Found.", null);
        }
        LOGGER.info("[cancelOrder] Order found G|H, orderId: {}", orderId);
        Order order = lookup.getData();
        if (!isCancellable(order.getStatus())) {
            return new Response<>(0, "Order Status Cancel Not Permitted", null);
        }

        String refund = calculateRefund(order);
        Response cancelled = cancelFromOrder(order, headers);
        if (cancelled.getStatus() != 1) {
            return new Response<>(0, cancelled.getMsg(), null);
        }
        if (!drawbackMoney(refund, loginId, headers)) {
            LOGGER.error("[cancelOrder] Draw Back Money Failed, orderId: {}", orderId);
            return new Response<>(1, "Success.", null);
        }

        User owner = getAccount(order.getAccountId().toString(), headers);
        if (owner == null) {
            return new Response<>(0, "Cannot find user info by user id.", null);
        }
        NotifyInfo notice = new NotifyInfo();
        notice.setEmail(owner.getEmail());
        notice.setUsername(owner.getUserName());
        notice.setOrderNumber(order.getId().toString());
        notice.setStartingPlace(order.getFrom());
        notice.setEndPlace(order.getTo());
        notice.setStartingTime(order.getTravelTime().toString());
        notice.setSeatClass(SeatClass.getNameByCode(order.getSeatClass()));
        notice.setSeatNumber(order.getSeatNumber());
        notice.setPrice(order.getPrice());
        notice.setDate(new Date().toString());
        sendEmail(notice, headers);
        return new Response<>(1, "Success.", null);
    }

    public String calculateRefund(Order order) {
        if (order.getStatus() == OrderStatus.NOTPAID.getCode()) {
            return "0.00";
        }
        if (!new Date().before(departureOf(order))) {
            return "0";
        }
        double refund = Double.parseDouble(order.getPrice()) * REFUND_RATE;
        String formatted = new DecimalFormat("0.00").format(refund);
        LOGGER.info("[calculateRefund] refund: {}", formatted);
        return formatted;
    }

    public boolean drawbackMoney(String money, String userId, HttpHeaders headers) {
        Response result = restTemplate.exchange(DRAWBACK_URL + userId + "/" + money, HttpMethod.GET,
                new HttpEntity<>(headers), Response.class).getBody();
        return result != null && result.getStatus() != null && result.getStatus() == 1;
    }

    public User getAccount(String orderId, HttpHeaders headers) {
        Response<User> reply = restTemplate.exchange(USER_BY_ID_URL + orderId, HttpMethod.GET,
                new HttpEntity<>(headers), ONE_USER).getBody();
        return reply == null ? null : reply.getData();
    }

    public boolean sendEmail(NotifyInfo notifyInfo, HttpHeaders headers) {
        Boolean sent = restTemplate.exchange(CANCEL_MAIL_URL, HttpMethod.POST,
                new HttpEntity<>(notifyInfo, headers), Boolean.class).getBody();
        return Boolean.TRUE.equals(sent);
    }

    private Response cancelFromOrder(Order order, HttpHeaders headers) {
        order.setStatus(OrderStatus.CANCEL.getCode());
        return restTemplate.exchange(ORDER_URL, HttpMethod.PUT, new HttpEntity<>(order, headers), Response.class)
                .getBody();
    }

    private Response<Order> getOrderByIdFromOrder(String orderId, HttpHeaders headers) {
        return restTemplate.exchange(ORDER_URL + "/" + orderId, HttpMethod.GET, new HttpEntity<>(headers), ONE_ORDER)
                .getBody();
    }

    private static boolean isCancellable(int status) {
        return status == OrderStatus.NOTPAID.getCode()
                || status == OrderStatus.PAID.getCode()
                || status == OrderStatus.CHANGE.getCode();
    }

    /** The departure instant: the day of the order's travel date at the time of its travel time. */
    private static Date departureOf(Order order) {
        Calendar departure = Calendar.getInstance();
        departure.setTime(order.getTravelDate());
        Calendar clock = Calendar.getInstance();
        clock.setTime(order.getTravelTime());
        departure.set(Calendar.HOUR_OF_DAY, clock.get(Calendar.HOUR_OF_DAY));
        departure.set(Calendar.MINUTE, clock.get(Calendar.MINUTE));
        departure.set(Calendar.SECOND, clock.get(Calendar.SECOND));
        return departure.getTime();
    }
}

package execute.service;

import edu.fudan.common.util.Response;
import execute.entity.Order;
import execute.entity.OrderStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

/**
 * Station gate operations on a ticket. Collecting turns a paid (or rebooked) order into a
 * collected one; executing lets a collected ticket through the gate and marks it used.
 * The order itself lives in ts-order-service; this service only checks and advances its status.
 */
@Service
public class ExecuteServiceImpl implements ExecuteService {

    private static final Logger log = LoggerFactory.getLogger(ExecuteServiceImpl.class);

    private static final String ORDER_API = "http://ts-order-service:12031/api/v1/orderservice/order";

    private static final ParameterizedTypeReference<Response<Order>> ORDER_REPLY =
            new ParameterizedTypeReference<Response<Order>>() { };

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response ticketExecute(String orderId, HttpHeaders headers) {
        Response<Order> lookup = getOrderByIdFromOrder(orderId, headers);
        if (lookup == null || lookup.getStatus() != 1) {
            return new Response<>(0, "Order Not Found", null);
        }
        Order order = lookup.getData();
        if (order.getStatus() != OrderStatus.COLLECTED.getCode()) {
            log.warn("[ticketExecute] order {} is in status {}, not collected", orderId, order.getStatus());
            return new Response<>(0, "Order Status Wrong", null);
        }
        return advance(orderId, OrderStatus.USED, "Success.", headers);
    }

    @Override
    public Response ticketCollect(String orderId, HttpHeaders headers) {
        Response<Order> lookup = getOrderByIdFromOrder(orderId, headers);
        if (lookup == null || lookup.getStatus() != 1) {
            return new Response<>(0, "Order Not Found", null);
        }
        Order order = lookup.getData();
        if (!isCollectable(order.getStatus())) {
            log.warn("[ticketCollect] order {} is in status {}, cannot be collected", orderId, order.getStatus());
            return new Response<>(0, "Order Status Wrong", null);
        }
        return advance(orderId, OrderStatus.COLLECTED, "Success", headers);
    }

    private static boolean isCollectable(int status) {
        return status == OrderStatus.PAID.getCode() || status == OrderStatus.CHANGE.getCode();
    }

    private Response advance(String orderId, OrderStatus target, String okMessage, HttpHeaders headers) {
        Response outcome = executeOrder(orderId, target.getCode(), headers);
        if (outcome == null || outcome.getStatus() != 1) {
            String reason = outcome == null ? "No response from order service" : outcome.getMsg();
            return new Response<>(0, reason, null);
        }
        return new Response<>(1, okMessage, null);
    }

    private Response executeOrder(String orderId, int status, HttpHeaders headers) {
        log.info("[executeOrder] Executing order, orderId: {}, status: {}", orderId, status);
        String url = ORDER_API + "/status/" + orderId + "/" + status;
        ResponseEntity<Response> reply = restTemplate.exchange(
                url, HttpMethod.GET, new HttpEntity<>(headers), Response.class);
        return reply.getBody();
    }

    private Response<Order> getOrderByIdFromOrder(String orderId, HttpHeaders headers) {
        ResponseEntity<Response<Order>> reply = restTemplate.exchange(
                ORDER_API + "/" + orderId, HttpMethod.GET, new HttpEntity<>(headers), ORDER_REPLY);
        return reply.getBody();
    }
}

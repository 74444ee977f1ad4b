package adminorder.service;

import adminorder.entity.Order;
import edu.fudan.common.util.Response;
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

import java.util.ArrayList;
import java.util.List;

/**
 * Admin view over the two order stores: high-speed trains (G/D) live in ts-order-service,
 * every other train in ts-order-other-service.
 */
@Service
public class AdminOrderServiceImpl implements AdminOrderService {

    private static final Logger LOGGER = LoggerFactory.getLogger(AdminOrderServiceImpl.class);

    private static final String ORDER_URL = "http://ts-order-service:12031/api/v1/orderservice/order";
    private static final String ORDER_OTHER_URL = "http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther";

    private static final ParameterizedTypeReference<Response<ArrayList<Order>>> ORDER_LIST =
            new ParameterizedTypeReference<Response<ArrayList<Order>>>() { };

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response getAllOrders(HttpHeaders headers) {
        LOGGER.info("[getAllOrders] collecting the orders of both order services");
        HttpEntity<Void> request = new HttpEntity<>(headers);
        List<Order> merged = new ArrayList<>();

        Response<ArrayList<Order>> highSpeed = restTemplate
                .exchange(ORDER_URL, HttpMethod.GET, request, ORDER_LIST).getBody();
        if (succeeded(highSpeed)) {
            LOGGER.info("[getAllOrders] Get Orders From ts-order-service successfully!");
            merged.addAll(highSpeed.getData());
        } else {
            LOGGER.error("[getAllOrders] Get Orders From ts-order-service fail!");
        }

        Response<ArrayList<Order>> other = restTemplate
                .exchange(ORDER_OTHER_URL, HttpMethod.GET, request, ORDER_LIST).getBody();
        if (succeeded(other)) {
            LOGGER.info("[getAllOrders] Get Orders From ts-order-other-service successfully!");
            merged.addAll(other.getData());
        } else {
            LOGGER.error("[getAllOrders] Get Orders From ts-order-other-service fail!");
        }

        return new Response<>(1, "Get the orders successfully!", merged);
    }

    @Override
    public Response deleteOrder(String orderId, String trainNumber, HttpHeaders headers) {
        String target = (isHighSpeed(trainNumber) ? ORDER_URL : ORDER_OTHER_URL) + "/" + orderId;
        LOGGER.info("[deleteOrder] deleting order {} of train {} at {}", orderId, trainNumber, target);
        ResponseEntity<Response> reply = restTemplate.exchange(
                target, HttpMethod.DELETE, new HttpEntity<>(headers), Response.class);
        return reply.getBody();
    }

    private static boolean succeeded(Response<ArrayList<Order>> r) {
        return r != null && r.getStatus() != null && r.getStatus() == 1 && r.getData() != null;
    }

    /** G (high-speed) and D (bullet) trains are booked through ts-order-service. */
    private static boolean isHighSpeed(String trainNumber) {
        return trainNumber != null && (trainNumber.startsWith("G") || trainNumber.startsWith("D"));
    }
}

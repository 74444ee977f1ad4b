package inside_payment.service;

import edu.fudan.common.util.Response;
import inside_payment.entity.Money;
import inside_payment.entity.MoneyType;
import inside_payment.entity.Order;
import inside_payment.entity.OrderStatus;
import inside_payment.entity.Payment;
import inside_payment.entity.PaymentInfo;
import inside_payment.entity.PaymentType;
import inside_payment.repository.AddMoneyRepository;
import inside_payment.repository.PaymentRepository;
import java.math.BigDecimal;
import java.util.List;
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
 * Pays ticket orders. The user's internal balance (top-ups and refunds minus earlier payments)
 * is used when it covers the price; otherwise the amount is charged through ts-payment-service.
 * High-speed trips (G/D) are kept by ts-order-service, all others by ts-order-other-service.
 */
@Service
public class InsidePaymentServiceImpl implements InsidePaymentService {

    private static final Logger log = LoggerFactory.getLogger(InsidePaymentServiceImpl.class);

    private static final String ORDER_API = "http://ts-order-service:12031/api/v1/orderservice/order";
    private static final String ORDER_OTHER_API = "http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther";
    private static final String PAYMENT_API = "http://ts-payment-service:19001/api/v1/paymentservice/payment";

    @Autowired
    public AddMoneyRepository addMoneyRepository;

    @Autowired
    public PaymentRepository paymentRepository;

    @Autowired
    public RestTemplate restTemplate;

    @Override
    public Response pay(PaymentInfo info, HttpHeaders headers) {
        Response<Order> lookup = fetchOrder(info.getTripId(), info.getOrderId(), headers);
        if (lookup == null || lookup.getStatus() != 1) {
            return new Response<>(0, "Payment Failed, Order Not Exists", null);
        }
        Order order = lookup.getData();
        if (order.getStatus() != OrderStatus.NOTPAID.getCode()) {
            log.warn("[pay] order {} has status {} and cannot be paid", info.getOrderId(), order.getStatus());
            return new Response<>(0, "Error. Order status Not allowed to Pay.", null);
        }

        Payment payment = new Payment();
        payment.setOrderId(info.getOrderId());
        payment.setUserId(info.getUserId());
        payment.setPrice(order.getPrice());

        BigDecimal price = new BigDecimal(order.getPrice());
        BigDecimal balance = balanceOf(info.getUserId());
        if (balance.compareTo(price) < 0) {
            return payOutside(info, payment, headers);
        }
        setOrderStatus(info.getTripId(), info.getOrderId(), headers);
        payment.setType(PaymentType.P);
        paymentRepository.save(payment);
        return new Response<>(1, "Payment Success", null);
    }

    @Override
    public Response drawBack(String userId, String money, HttpHeaders headers) {
        List<Money> history = addMoneyRepository.findByUserId(userId);
        if (history == null) {
            log.warn("[drawBack] no account found for user {}", userId);
            return new Response<>(0, "Draw Back Money Failed", null);
        }
        Money refund = new Money();
        refund.setUserId(userId);
        refund.setMoney(money);
        refund.setType(MoneyType.D);
        addMoneyRepository.save(refund);
        return new Response<>(1, "Draw Back Money Success", null);
    }

    /** Everything credited to the user (top-ups and refunds) minus everything already paid. */
    private BigDecimal balanceOf(String userId) {
        BigDecimal credited = BigDecimal.ZERO;
        for (Money m : addMoneyRepository.findByUserId(userId)) {
            credited = credited.add(new BigDecimal(m.getMoney()));
        }
        BigDecimal spent = BigDecimal.ZERO;
        for (Payment p : paymentRepository.findByUserId(userId)) {
            spent = spent.add(new BigDecimal(p.getPrice()));
        }
        return credited.subtract(spent);
    }

    private Response payOutside(PaymentInfo info, Payment payment, HttpHeaders headers) {
        Payment charge = new Payment();
        charge.setOrderId(info.getOrderId());
        charge.setUserId(info.getUserId());
        charge.setPrice(payment.getPrice());

        HttpEntity<Payment> request = new HttpEntity<>(charge, headers);
        ResponseEntity<Response> reply = restTemplate.exchange(PAYMENT_API, HttpMethod.POST, request, Response.class);
        Response outcome = reply.getBody();
        log.info("[pay] Out pay result: {}", outcome);
        if (outcome == null || outcome.getStatus() != 1) {
            return new Response<>(0, "Payment Failed: " + (outcome == null ? "no answer" : outcome.getMsg()), null);
        }
        payment.setType(PaymentType.O);
        paymentRepository.save(payment);
        setOrderStatus(info.getTripId(), info.getOrderId(), headers);
        return new Response<>(1, "Payment Success " + outcome.getMsg(), null);
    }

    private static boolean isHighSpeed(String tripId) {
        return tripId.startsWith("G") || tripId.startsWith("D");
    }

    private Response<Order> fetchOrder(String tripId, String orderId, HttpHeaders headers) {
        String base = isHighSpeed(tripId) ? ORDER_API : ORDER_OTHER_API;
        ResponseEntity<Response<Order>> reply = restTemplate.exchange(
                base + "/" + orderId, HttpMethod.GET, new HttpEntity<>(headers),
                new ParameterizedTypeReference<Response<Order>>() { });
        return reply.getBody();
    }

    private Response setOrderStatus(String tripId, String orderId, HttpHeaders headers) {
        String base = isHighSpeed(tripId) ? ORDER_API : ORDER_OTHER_API;
        String url = base + "/status/" + orderId + "/" + OrderStatus.PAID.getCode();
        ResponseEntity<Response> reply = restTemplate.exchange(url, HttpMethod.GET, new HttpEntity<>(headers), Response.class);
        return reply.getBody();
    }
}

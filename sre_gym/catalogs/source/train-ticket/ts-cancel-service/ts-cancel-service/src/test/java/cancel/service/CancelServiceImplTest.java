package cancel.service;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.when;

import cancel.entity.Order;
import cancel.entity.OrderStatus;
import edu.fudan.common.util.Response;
import java.util.Date;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;

public class CancelServiceImplTest {

    private static final long DAY_MS = 24L * 60 * 60 * 1000;

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private CancelServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testCalculateRefundNotPaid() {
        Order order = new Order();
        order.setStatus(OrderStatus.NOTPAID.getCode());
        assertEquals("0.00", service.calculateRefund(order));
    }

    @Test
    public void testCalculateRefundBeforeDeparture() {
        Order order = new Order();
        order.setStatus(OrderStatus.PAID.getCode());
        order.setPrice("100.0");
        Date inTwoDays = new Date(System.currentTimeMillis() + 2 * DAY_MS);
        order.setTravelDate(inTwoDays);
        order.setTravelTime(inTwoDays);
        assertEquals("80.00", service.calculateRefund(order));
    }

    @Test
    public void testCancelOrderStatusNotPermitted() {
        Order used = new Order();
        used.setStatus(OrderStatus.USED.getCode());
        when(restTemplate.exchange(eq("http://ts-order-service:12031/api/v1/orderservice/order/o-1"), eq(HttpMethod.GET),
                any(HttpEntity.class), any(ParameterizedTypeReference.class)))
                .thenReturn(ResponseEntity.ok(new Response<>(1, "Success", used)));

        Response result = service.cancelOrder("o-1", "u-1", headers);

        assertEquals("Order Status Cancel Not Permitted", result.getMsg());
    }
}

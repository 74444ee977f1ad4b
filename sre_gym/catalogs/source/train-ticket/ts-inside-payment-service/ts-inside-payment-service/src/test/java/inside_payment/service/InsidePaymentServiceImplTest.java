package inside_payment.service;

import edu.fudan.common.util.Response;
import inside_payment.entity.Money;
import inside_payment.entity.MoneyType;
import inside_payment.entity.Order;
import inside_payment.entity.OrderStatus;
import inside_payment.entity.PaymentInfo;
import inside_payment.repository.AddMoneyRepository;
import inside_payment.repository.PaymentRepository;
import java.util.ArrayList;
import org.junit.Before;
import org.junit.Test;
import org.mockito.ArgumentCaptor;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

public class InsidePaymentServiceImplTest {

    @Mock
    private AddMoneyRepository addMoneyRepository;

    @Mock
    private PaymentRepository paymentRepository;

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private InsidePaymentServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @SuppressWarnings("unchecked")
    private void orderLookupReturns(Response<Order> reply) {
        when(restTemplate.exchange(anyString(), eq(HttpMethod.GET), any(HttpEntity.class), any(ParameterizedTypeReference.class)))
                .thenReturn(ResponseEntity.ok(reply));
    }

    private static PaymentInfo info() {
        PaymentInfo info = new PaymentInfo();
        info.setUserId("u-1");
        info.setOrderId("o-1");
        info.setTripId("G1237");
        return info;
    }

    @Test
    public void testDrawBack() {
        when(addMoneyRepository.findByUserId("u-1")).thenReturn(new ArrayList<>());
        assertEquals(Integer.valueOf(1), service.drawBack("u-1", "25.0", headers).getStatus());
        ArgumentCaptor<Money> saved = ArgumentCaptor.forClass(Money.class);
        verify(addMoneyRepository).save(saved.capture());
        assertEquals(MoneyType.D, saved.getValue().getType());
    }

    @Test
    public void testPayOrderNotExists() {
        orderLookupReturns(new Response<>(0, "not found", null));
        assertEquals("Payment Failed, Order Not Exists", service.pay(info(), headers).getMsg());
    }

    @Test
    public void testPayStatusNotAllowed() {
        Order order = new Order();
        order.setStatus(OrderStatus.PAID.getCode());
        order.setPrice("100.0");
        orderLookupReturns(new Response<>(1, "Success", order));
        assertEquals(Integer.valueOf(0), service.pay(info(), headers).getStatus());
    }
}

package rebook.service;

import edu.fudan.common.util.Response;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;
import rebook.entity.Order;
import rebook.entity.OrderStatus;
import rebook.entity.RebookInfo;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.when;

public class RebookServiceImplTest {

    @InjectMocks
    private RebookServiceImpl service;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @SuppressWarnings("unchecked")
    private void orderLookupReturns(Response<Order> reply) {
        when(restTemplate.exchange(anyString(), any(HttpMethod.class), any(HttpEntity.class),
                any(ParameterizedTypeReference.class)))
                .thenReturn(new ResponseEntity<>(reply, HttpStatus.OK));
    }

    private static RebookInfo rebookOf(String oldTrip) {
        RebookInfo info = new RebookInfo();
        info.setOldTripId(oldTrip);
        info.setOrderId("5ad7750b-a68b-49c0-a8c0-32776b067703");
        return info;
    }

    @Test
    public void testRebookNotPaid() {
        Order order = new Order();
        order.setStatus(OrderStatus.NOTPAID.getCode());
        orderLookupReturns(new Response<>(1, "Success", order));
        assertEquals(new Response<>(0, "You haven't paid the original ticket!", null), service.rebook(rebookOf("G1234"), headers));
    }

    @Test
    public void testRebookAlreadyChanged() {
        Order order = new Order();
        order.setStatus(OrderStatus.CHANGE.getCode());
        orderLookupReturns(new Response<>(1, "Success", order));
        assertEquals(new Response<>(0, "You have already changed your ticket and you can only change one time.", null),
                service.rebook(rebookOf("Z1235"), headers));
    }

    @Test
    public void testRebookOrderMissing() {
        orderLookupReturns(new Response<>(0, "Order Not Found", null));
        assertEquals(new Response<>(0, "Order Not Found", null), service.rebook(rebookOf("K1345"), headers));
    }
}

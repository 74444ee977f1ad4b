package execute.service;

import edu.fudan.common.util.Response;
import execute.entity.Order;
import execute.entity.OrderStatus;
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

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.when;

public class ExecuteServiceImplTest {

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private ExecuteServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @SuppressWarnings("unchecked")
    private void orderServiceAnswers(Response<Order> reply) {
        when(restTemplate.exchange(anyString(), eq(HttpMethod.GET), any(HttpEntity.class), any(ParameterizedTypeReference.class)))
                .thenReturn(ResponseEntity.ok(reply));
    }

    @Test
    public void testTicketCollectNotFound() {
        orderServiceAnswers(new Response<>(0, "not found", null));
        Response<?> result = service.ticketCollect("missing-order", headers);
        assertEquals("Order Not Found", result.getMsg());
    }

    @Test
    public void testTicketExecuteStatusWrong() {
        Order paid = new Order();
        paid.setStatus(OrderStatus.PAID.getCode());
        orderServiceAnswers(new Response<>(1, "Success", paid));
        Response<?> result = service.ticketExecute("paid-order", headers);
        assertEquals("Order Status Wrong", result.getMsg());
    }
}

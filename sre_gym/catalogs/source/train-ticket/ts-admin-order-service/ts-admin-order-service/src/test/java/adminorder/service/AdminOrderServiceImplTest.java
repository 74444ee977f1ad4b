package adminorder.service;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import adminorder.entity.Order;
import edu.fudan.common.util.Response;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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

public class AdminOrderServiceImplTest {

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private AdminOrderServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private void listing(String url, ArrayList<Order> orders) {
        when(restTemplate.exchange(eq(url), eq(HttpMethod.GET), any(HttpEntity.class),
                any(ParameterizedTypeReference.class)))
                .thenReturn(ResponseEntity.ok(new Response<>(1, "Success", orders)));
    }

    @Test
    public void testGetAllOrders() {
        ArrayList<Order> fast = new ArrayList<>(Collections.singletonList(new Order()));
        ArrayList<Order> slow = new ArrayList<>(Collections.singletonList(new Order()));
        listing("http://ts-order-service:12031/api/v1/orderservice/order", fast);
        listing("http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther", slow);

        Response result = service.getAllOrders(headers);

        assertEquals(Integer.valueOf(1), result.getStatus());
        assertEquals("Get the orders successfully!", result.getMsg());
        assertEquals(2, ((List<?>) result.getData()).size());
    }

    @Test
    public void testDeleteOrderOfOtherTrain() {
        when(restTemplate.exchange(any(String.class), eq(HttpMethod.DELETE), any(HttpEntity.class),
                eq(Response.class))).thenReturn(ResponseEntity.ok(new Response<>(1, "Delete success", null)));

        service.deleteOrder("o-17", "K1235", headers);

        verify(restTemplate).exchange(eq("http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther/o-17"),
                eq(HttpMethod.DELETE), any(HttpEntity.class), eq(Response.class));
    }
}

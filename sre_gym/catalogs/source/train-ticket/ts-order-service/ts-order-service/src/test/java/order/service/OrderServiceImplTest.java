package order.service;

import edu.fudan.common.util.Response;
import order.entity.Order;
import order.entity.Seat;
import order.repository.OrderRepository;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;
import org.springframework.web.client.RestTemplate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Optional;
import java.util.UUID;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

public class OrderServiceImplTest {

    @InjectMocks
    private OrderServiceImpl service;

    @Mock
    private OrderRepository orderRepository;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testGetSoldTicketsEmpty() {
        when(orderRepository.findByTravelDateAndTrainNumber(any(), anyString())).thenReturn(new ArrayList<>());
        Response result = service.getSoldTickets(new Seat(), headers);
        assertEquals(new Response<>(0, "Order is Null.", null), result);
    }

    @Test
    public void testFindOrderByIdMissing() {
        UUID id = UUID.randomUUID();
        when(orderRepository.findById(id)).thenReturn(Optional.empty());
        assertEquals(new Response<>(0, "No Content by this id", null), service.findOrderById(id, headers));
    }

    @Test
    public void testCreateDuplicate() {
        Order order = new Order();
        order.setAccountId(UUID.randomUUID());
        when(orderRepository.findByAccountId(order.getAccountId()))
                .thenReturn(new ArrayList<>(Collections.singletonList(order)));
        assertEquals(new Response<>(0, "Order already exist", null), service.create(order, headers));
        verify(orderRepository, never()).save(any(Order.class));
    }
}

package foodsearch.service;

import edu.fudan.common.util.Response;
import foodsearch.entity.FoodOrder;
import foodsearch.repository.FoodOrderRepository;
import java.util.UUID;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;
import org.springframework.web.client.RestTemplate;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

public class FoodServiceImplTest {

    @Mock
    private RestTemplate restTemplate;

    @Mock
    private FoodOrderRepository foodOrderRepository;

    @InjectMocks
    private FoodServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testGetAllFoodBadTripId() {
        Response<?> result = service.getAllFood("2024-03-01", "shanghai", "nanjing", "D1", headers);
        assertEquals("Trip id is not suitable", result.getMsg());
        verifyNoInteractions(restTemplate);
    }

    @Test
    public void testCreateFoodOrderExisting() {
        FoodOrder request = new FoodOrder();
        request.setOrderId(UUID.randomUUID());
        when(foodOrderRepository.findByOrderId(request.getOrderId())).thenReturn(new FoodOrder());

        assertEquals(Integer.valueOf(0), service.createFoodOrder(request, headers).getStatus());
        verify(foodOrderRepository, never()).save(any(FoodOrder.class));
    }
}

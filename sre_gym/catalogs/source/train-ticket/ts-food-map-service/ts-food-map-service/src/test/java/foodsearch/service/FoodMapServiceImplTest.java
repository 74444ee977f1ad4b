package foodsearch.service;

import edu.fudan.common.util.Response;
import foodsearch.entity.FoodStore;
import foodsearch.entity.TrainFood;
import foodsearch.repository.FoodStoreRepository;
import foodsearch.repository.TrainFoodRepository;
import java.util.Collections;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;

import static org.junit.Assert.assertEquals;
import static org.mockito.Mockito.when;

public class FoodMapServiceImplTest {

    @Mock
    private FoodStoreRepository foodStoreRepository;

    @Mock
    private TrainFoodRepository trainFoodRepository;

    @InjectMocks
    private FoodMapServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testListFoodStoresEmpty() {
        when(foodStoreRepository.findAll()).thenReturn(Collections.<FoodStore>emptyList());
        Response<?> result = service.listFoodStores(headers);
        assertEquals(Integer.valueOf(0), result.getStatus());
        assertEquals("Foodstore is empty", result.getMsg());
    }

    @Test
    public void testListTrainFoodByTripIdEmptyIsSuccess() {
        when(trainFoodRepository.findByTripId("G1234")).thenReturn(Collections.<TrainFood>emptyList());
        assertEquals(Integer.valueOf(1), service.listTrainFoodByTripId("G1234", headers).getStatus());
    }
}

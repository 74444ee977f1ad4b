package plan.service;

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
import plan.entity.RoutePlanInfo;
import plan.entity.TripResponse;

import java.util.ArrayList;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.when;

public class RoutePlanServiceImplTest {

    @InjectMocks
    private RoutePlanServiceImpl service;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    @SuppressWarnings("unchecked")
    public void testSearchCheapestResultEmpty() {
        Response<ArrayList<TripResponse>> noTrips = new Response<>(1, "Success", new ArrayList<>());
        when(restTemplate.exchange(anyString(), any(HttpMethod.class), any(HttpEntity.class),
                any(ParameterizedTypeReference.class)))
                .thenReturn(new ResponseEntity<>(noTrips, HttpStatus.OK));
        RoutePlanInfo info = new RoutePlanInfo();
        info.setFormStationName("shanghai");
        info.setToStationName("taiyuan");
        assertEquals(new Response<>(1, "Success", new ArrayList<>()), service.searchCheapestResult(info, headers));
    }
}

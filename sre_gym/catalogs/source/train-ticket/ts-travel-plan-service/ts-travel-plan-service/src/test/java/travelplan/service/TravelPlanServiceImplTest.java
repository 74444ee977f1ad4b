package travelplan.service;

import edu.fudan.common.util.Response;
import org.junit.Assert;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.Mockito;
import org.mockito.MockitoAnnotations;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;
import travelplan.entity.RoutePlanResultUnit;
import travelplan.entity.TripInfo;

import java.util.Collections;
import java.util.List;

public class TravelPlanServiceImplTest {

    @InjectMocks
    private TravelPlanServiceImpl travelPlanService;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private void routePlanReply(ResponseEntity<Response<List<RoutePlanResultUnit>>> reply) {
        Mockito.when(restTemplate.exchange(Mockito.contains("cheapestRoute"), Mockito.eq(HttpMethod.POST),
                Mockito.any(HttpEntity.class), Mockito.any(ParameterizedTypeReference.class))).thenReturn(reply);
    }

    @Test
    public void testGetCheapestCannotFind() {
        List<RoutePlanResultUnit> none = Collections.emptyList();
        routePlanReply(new ResponseEntity<>(new Response<>(1, "Success", none), HttpStatus.OK));

        Response result = travelPlanService.getCheapest(new TripInfo(), headers);

        Assert.assertEquals(new Response<>(0, "Cannot Find", null), result);
    }

    @Test
    public void testGetCheapestWithoutReplyBody() {
        routePlanReply(new ResponseEntity<>(HttpStatus.SERVICE_UNAVAILABLE));

        Response result = travelPlanService.getCheapest(new TripInfo(), headers);

        Assert.assertEquals("Cannot Find", result.getMsg());
    }
}

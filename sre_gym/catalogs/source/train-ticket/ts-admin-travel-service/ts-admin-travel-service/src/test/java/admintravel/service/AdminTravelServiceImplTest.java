package admintravel.service;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.when;

import admintravel.entity.AdminTrip;
import admintravel.entity.TravelInfo;
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

public class AdminTravelServiceImplTest {

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private AdminTravelServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testAddTravelFails() {
        TravelInfo info = new TravelInfo();
        info.setTrainTypeId("G1234");
        when(restTemplate.exchange(eq("http://ts-travel-service:12346/api/v1/travelservice/trips"),
                eq(HttpMethod.POST), any(HttpEntity.class), eq(Response.class)))
                .thenReturn(ResponseEntity.ok(new Response<>(0, "Trip already exists", null)));

        Response result = service.addTravel(info, headers);

        assertEquals(Integer.valueOf(0), result.getStatus());
        assertEquals("Admin add new travel failed", result.getMsg());
    }

    @Test
    public void testGetAllTravelsSkipsFailedListing() {
        ArrayList<AdminTrip> fast = new ArrayList<>(Collections.singletonList(new AdminTrip()));
        when(restTemplate.exchange(eq("http://ts-travel-service:12346/api/v1/travelservice/admin_trip"),
                eq(HttpMethod.GET), any(HttpEntity.class), any(ParameterizedTypeReference.class)))
                .thenReturn(ResponseEntity.ok(new Response<>(1, "Success", fast)));
        when(restTemplate.exchange(eq("http://ts-travel2-service:16346/api/v1/travel2service/admin_trip"),
                eq(HttpMethod.GET), any(HttpEntity.class), any(ParameterizedTypeReference.class)))
                .thenReturn(ResponseEntity.ok(new Response<>(0, "No content", null)));

        Response result = service.getAllTravels(headers);

        assertEquals(1, ((List<?>) result.getData()).size());
    }
}

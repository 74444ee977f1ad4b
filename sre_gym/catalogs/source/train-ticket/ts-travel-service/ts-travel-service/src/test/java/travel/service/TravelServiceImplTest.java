package travel.service;

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
import travel.entity.Route;
import travel.entity.Trip;
import travel.entity.TripInfo;
import travel.repository.TripRepository;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.concurrent.TimeUnit;

public class TravelServiceImplTest {

    @InjectMocks
    private TravelServiceImpl travelService;

    @Mock
    private TripRepository repository;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private static <T> ResponseEntity<Response<T>> ok(T data) {
        return new ResponseEntity<>(new Response<>(1, "Success", data), HttpStatus.OK);
    }

    private void stubGet(String urlPart, ResponseEntity<?> first, ResponseEntity<?>... more) {
        Mockito.when(restTemplate.exchange(Mockito.contains(urlPart), Mockito.eq(HttpMethod.GET),
                Mockito.any(HttpEntity.class), Mockito.any(ParameterizedTypeReference.class)))
                .thenReturn(first, more);
    }

    @Test
    public void testQueryNoTrips() {
        Mockito.when(repository.findAll()).thenReturn(new ArrayList<>());
        stubGet("/ticketinfo/", ok("shanghai"));

        Response result = travelService.query(new TripInfo(), headers);

        Assert.assertEquals(new Response<>(1, "Success", new ArrayList<>()), result);
    }

    @Test
    public void testQueryTicketsNotFound() {
        Route route = new Route();
        route.setId("route-1");
        route.setStations(Arrays.asList("shanghai", "suzhou", "nanjing"));
        route.setDistances(Arrays.asList(0, 100, 300));
        Trip trip = new Trip();
        trip.setRouteId("route-1");
        Mockito.when(repository.findAll()).thenReturn(Collections.singletonList(trip));
        stubGet("/ticketinfo/", ok("shanghai"), ok("nanjing"));
        stubGet("/routes/", ok(route));
        TripInfo info = new TripInfo();
        info.setStartingPlace("Shanghai");
        info.setEndPlace("Nanjing");
        info.setDepartureTime(new Date(System.currentTimeMillis() - TimeUnit.DAYS.toMillis(2)));

        Response result = travelService.query(info, headers);

        Assert.assertEquals(new Response<>(0, "No Trip info content", null), result);
    }
}

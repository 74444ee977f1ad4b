package ticketinfo.service;

import edu.fudan.common.util.Response;
import org.junit.Assert;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.Mockito;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;
import ticketinfo.entity.Travel;
import ticketinfo.entity.Trip;
import ticketinfo.entity.TripId;

public class TicketInfoServiceImplTest {

    @InjectMocks
    private TicketInfoServiceImpl ticketInfoService;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testQueryForStationId() {
        Response expected = new Response<>(1, "Success", "nanjing");
        Mockito.when(restTemplate.exchange(
                Mockito.eq("http://ts-basic-service:15680/api/v1/basicservice/basic/Nanjing"),
                Mockito.eq(HttpMethod.GET),
                Mockito.any(HttpEntity.class),
                Mockito.eq(Response.class))).thenReturn(new ResponseEntity<>(expected, HttpStatus.OK));

        Assert.assertEquals(expected, ticketInfoService.queryForStationId("Nanjing", headers));
    }

    @Test
    public void testQueryForTravel() {
        Trip trip = new Trip();
        trip.setTripId(new TripId("G1234"));
        Travel travel = new Travel();
        travel.setTrip(trip);
        Response expected = new Response<>(1, "Success", null);
        Mockito.when(restTemplate.exchange(
                Mockito.eq("http://ts-basic-service:15680/api/v1/basicservice/basic/travel"),
                Mockito.eq(HttpMethod.POST),
                Mockito.any(HttpEntity.class),
                Mockito.eq(Response.class))).thenReturn(new ResponseEntity<>(expected, HttpStatus.OK));

        Assert.assertEquals(expected, ticketInfoService.queryForTravel(travel, headers));
    }

    @Test
    public void testEmptyReplyBecomesFailure() {
        Mockito.when(restTemplate.exchange(Mockito.anyString(), Mockito.any(HttpMethod.class),
                Mockito.any(HttpEntity.class), Mockito.eq(Response.class)))
                .thenReturn(new ResponseEntity<>(HttpStatus.NO_CONTENT));

        Response result = ticketInfoService.queryForStationId("Nanjing", headers);

        Assert.assertEquals(0, result.getStatus().intValue());
    }
}

package adminbasic.service;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import adminbasic.entity.Station;
import edu.fudan.common.util.Response;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;

public class AdminBasicInfoServiceImplTest {

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private AdminBasicInfoServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private void answer(String url, HttpMethod method, Response body) {
        when(restTemplate.exchange(eq(url), eq(method), any(HttpEntity.class), eq(Response.class)))
                .thenReturn(ResponseEntity.ok(body));
    }

    @Test
    public void testGetAllStations() {
        Response stations = new Response<>(1, "Find all content", null);
        answer("http://ts-station-service:12345/api/v1/stationservice/stations", HttpMethod.GET, stations);
        assertSame(stations, service.getAllStations(headers));
    }

    @Test
    public void testGetAllPrices() {
        Response prices = new Response<>(1, "Success", null);
        answer("http://ts-price-service:16579/api/v1/priceservice/prices", HttpMethod.GET, prices);
        assertSame(prices, service.getAllPrices(headers));
    }

    @Test
    public void testAddStationWithoutNameIsRejected() {
        Response reply = service.addStation(new Station(), headers);
        assertEquals(Integer.valueOf(0), reply.getStatus());
        verify(restTemplate, never()).exchange(any(String.class), any(HttpMethod.class),
                any(HttpEntity.class), eq(Response.class));
    }
}

package fdse.microservice.service;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.when;

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

public class BasicServiceImplTest {

    private static final String STATION_ID = "http://ts-station-service:12345/api/v1/stationservice/stations/id/";

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private BasicServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private void station(String name, Response reply) {
        when(restTemplate.exchange(eq(STATION_ID + name), eq(HttpMethod.GET), any(HttpEntity.class), eq(Response.class)))
                .thenReturn(ResponseEntity.ok(reply));
    }

    @Test
    public void testQueryForStationId() {
        Response found = new Response<>(1, "Success", "shanghai");
        station("shanghai", found);
        assertSame(found, service.queryForStationId("shanghai", headers));
    }

    @Test
    public void testCheckStationExists() {
        station("shanghai", new Response<>(1, "Success", "shanghai"));
        station("atlantis", new Response<>(0, "Not exists", null));
        assertTrue(service.checkStationExists("shanghai", headers));
        assertFalse(service.checkStationExists("atlantis", headers));
    }
}

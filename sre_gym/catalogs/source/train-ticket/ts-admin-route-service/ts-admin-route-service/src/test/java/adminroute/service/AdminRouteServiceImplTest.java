package adminroute.service;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

import adminroute.entity.RouteInfo;
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

public class AdminRouteServiceImplTest {

    private static final String ROUTES = "http://ts-route-service:11178/api/v1/routeservice/routes";

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private AdminRouteServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private static RouteInfo route(String stations, String distances) {
        RouteInfo info = new RouteInfo();
        info.setStartStation("shanghai");
        info.setEndStation("taiyuan");
        info.setStationList(stations);
        info.setDistanceList(distances);
        return info;
    }

    @Test
    public void testCreateAndModifyRouteMismatch() {
        Response result = service.createAndModifyRoute(route("shanghai,nanjing", "0"), headers);
        assertEquals(Integer.valueOf(0), result.getStatus());
        assertEquals("Station Number Not Equal To Distance Number", result.getMsg());
        verifyNoInteractions(restTemplate);
    }

    @Test
    public void testCreateAndModifyRouteForwardsValidRoute() {
        Response saved = new Response<>(1, "Save Success", null);
        when(restTemplate.exchange(eq(ROUTES), eq(HttpMethod.POST), any(HttpEntity.class), eq(Response.class)))
                .thenReturn(ResponseEntity.ok(saved));
        assertSame(saved, service.createAndModifyRoute(route("shanghai,nanjing,taiyuan", "0,350,1100"), headers));
    }
}

package route.service;

import edu.fudan.common.util.Response;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;
import route.entity.Route;
import route.entity.RouteInfo;
import route.repository.RouteRepository;

import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

public class RouteServiceImplTest {

    @InjectMocks
    private RouteServiceImpl service;

    @Mock
    private RouteRepository routeRepository;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testGetRouteByIdMissing() {
        when(routeRepository.findById(anyString())).thenReturn(Optional.empty());
        assertEquals(new Response<>(0, "No content with the routeId", null), service.getRouteById("route-1", headers));
    }

    @Test
    public void testCreateMismatch() {
        RouteInfo info = new RouteInfo();
        info.setStartStation("shanghai");
        info.setEndStation("taiyuan");
        info.setStationList("shanghai,nanjing,taiyuan");
        info.setDistanceList("0,350");
        assertEquals(new Response<>(0, "Station Number Not Equal To Distance Number", null),
                service.createAndModify(info, headers));
        verify(routeRepository, never()).save(any(Route.class));
    }
}

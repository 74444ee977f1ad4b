package adminroute.service;

import adminroute.entity.RouteInfo;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

/**
 * Route administration for the admin console. Routes are owned by ts-route-service; this class
 * validates what the console submits and forwards it.
 */
@Service
public class AdminRouteServiceImpl implements AdminRouteService {

    private static final Logger LOGGER = LoggerFactory.getLogger(AdminRouteServiceImpl.class);

    private static final String ROUTES_URL = "http://ts-route-service:11178/api/v1/routeservice/routes";

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response getAllRoutes(HttpHeaders headers) {
        ResponseEntity<Response> reply = restTemplate.exchange(
                ROUTES_URL, HttpMethod.GET, new HttpEntity<>(headers), Response.class);
        return reply.getBody();
    }

    @Override
    public Response createAndModifyRoute(RouteInfo request, HttpHeaders headers) {
        LOGGER.info("[createAndModifyRoute] start: {}, end: {}", request.getStartStation(), request.getEndStation());
        int stations = countEntries(request.getStationList());
        int distances = countEntries(request.getDistanceList());
        if (stations == 0 || stations != distances) {
            LOGGER.warn("[createAndModifyRoute] rejected: {} stations but {} distances", stations, distances);
            return new Response<>(0, "Station Number Not Equal To Distance Number", null);
        }
        ResponseEntity<Response> reply = restTemplate.exchange(
                ROUTES_URL, HttpMethod.POST, new HttpEntity<>(request, headers), Response.class);
        return reply.getBody();
    }

    @Override
    public Response deleteRoute(String routeId, HttpHeaders headers) {
        LOGGER.info("[deleteRoute] route id: {}", routeId);
        ResponseEntity<Response> reply = restTemplate.exchange(
                ROUTES_URL + "/" + routeId, HttpMethod.DELETE, new HttpEntity<>(headers), Response.class);
        return reply.getBody();
    }

    /** Number of entries in a comma separated list such as "shanghai,nanjing,taiyuan". */
    private static int countEntries(String csv) {
        if (csv == null || csv.trim().isEmpty()) {
            return 0;
        }
        return csv.split(",").length;
    }
}

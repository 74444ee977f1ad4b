package route.service;

import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;
import route.entity.Route;
import route.entity.RouteInfo;
import route.repository.RouteRepository;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Routes are ordered station lists with the distance of every station from the start;
 * the travel and route-plan services look them up by id or by a pair of stations.
 */
@Service
public class RouteServiceImpl implements RouteService {

    private static final Logger LOGGER = LoggerFactory.getLogger(RouteServiceImpl.class);

    @Autowired
    private RouteRepository routeRepository;

    @Override
    public Response createAndModify(RouteInfo info, HttpHeaders headers) {
        LOGGER.info("[createAndModify] Create and modify Start: {} End: {}", info.getStartStation(), info.getEndStation());
        String[] stations = info.getStationList().split(",");
        String[] distances = info.getDistanceList().split(",");
        if (stations.length != distances.length) {
            LOGGER.error("[createAndModify] route {} has {} stations but {} distances", info.getId(), stations.length,
                    distances.length);
            return new Response<>(0, "Station Number Not Equal To Distance Number", null);
        }
        List<String> stationList = new ArrayList<>(stations.length);
        List<Integer> distanceList = new ArrayList<>(distances.length);
        for (int i = 0; i < stations.length; i++) {
            stationList.add(stations[i].trim());
            distanceList.add(parseDistance(distances[i]));
        }

        boolean fresh = info.getId() == null || info.getId().trim().isEmpty();
        Route route = fresh ? new Route() : routeRepository.findById(info.getId()).orElseGet(Route::new);
        route.setId(fresh ? UUID.randomUUID().toString() : info.getId());
        route.setStartStationId(info.getStartStation());
        route.setTerminalStationId(info.getEndStation());
        route.setStations(stationList);
        route.setDistances(distanceList);
        routeRepository.save(route);
        return new Response<>(1, fresh ? "Save Success" : "Modify success", route);
    }

    /** Distances are whole kilometres from the first station of the route. */
    private static int parseDistance(String raw) {
        return Integer.parseInt(raw.trim());
    }

    @Override
    public Response getRouteById(String routeId, HttpHeaders headers) {
        Optional<Route> route = routeRepository.findById(routeId);
        if (!route.isPresent()) {
            LOGGER.warn("[getRouteById] no route with id {}", routeId);
            return new Response<>(0, "No content with the routeId", null);
        }
        return new Response<>(1, "Success", route.get());
    }

    @Override
    public Response getRouteByStartAndTerminal(String startId, String terminalId, HttpHeaders headers) {
        List<Route> matching = new ArrayList<>();
        for (Route route : routeRepository.findAll()) {
            List<String> stops = route.getStations();
            int from = stops.indexOf(startId);
            int to = stops.indexOf(terminalId);
            // both stations on the route, in travel direction
            if (from >= 0 && to > from) {
                matching.add(route);
            }
        }
        if (matching.isEmpty()) {
            LOGGER.warn("[getRouteByStartAndTerminal] no route from {} to {}", startId, terminalId);
            return new Response<>(0, "No routes with the startId and terminalId", null);
        }
        return new Response<>(1, "Success", matching);
    }

    @Override
    public Response getAllRoutes(HttpHeaders headers) {
        List<Route> routes = routeRepository.findAll();
        if (routes == null || routes.isEmpty()) {
            return new Response<>(0, "No Content", null);
        }
        return new Response<>(1, "Success", routes);
    }
}

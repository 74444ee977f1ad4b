package plan.service;

import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;
import plan.entity.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * Travel plans across both travel services: the cheapest trips of a day and the
 * routes with the fewest stops between two stations.
 */
@Service
public class RoutePlanServiceImpl implements RoutePlanService {

    private static final Logger LOGGER = LoggerFactory.getLogger(RoutePlanServiceImpl.class);

    /** How many plans a search returns at most. */
    private static final int MAX_PLANS = 5;

    private static final String HIGH_SPEED_TRIPS_URL = "http://ts-travel-service:12346/api/v1/travelservice/trips/left";
    private static final String NORMAL_TRIPS_URL = "http://ts-travel2-service:16346/api/v1/travel2service/trips/left";
    private static final String ROUTES_URL = "http://ts-route-service:11178/api/v1/routeservice/routes/";
    private static final String STATION_ID_URL = "http://ts-station-service:12345/api/v1/stationservice/stations/id/";

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response searchCheapestResult(RoutePlanInfo info, HttpHeaders headers) {
        TripInfo query = new TripInfo();
        query.setStartingPlace(info.getFormStationName());
        query.setEndPlace(info.getToStationName());
        query.setDepartureTime(info.getTravelDate());

        List<TripResponse> candidates = new ArrayList<>();
        candidates.addAll(getTripFromHighSpeedTravelServive(query, headers));
        candidates.addAll(getTripFromNormalTrainTravelService(query, headers));

        // partial selection sort: take the cheapest economy fare out, round by round
        int size = Math.min(MAX_PLANS, candidates.size());
        List<RoutePlanResultUnit> units = new ArrayList<>(size);
        for (int round = 0; round < size; round++) {
            int cheapest = 0;
            float lowest = economyFare(candidates.get(0));
            for (int j = 1; j < candidates.size(); j++) {
                float fare = economyFare(candidates.get(j));
                if (fare < lowest) {
                    lowest = fare;
                    cheapest = j;
                }
            }
            units.add(toUnit(candidates.remove(cheapest)));
        }
        LOGGER.info("[searchCheapestResult] {} -> {}: {} plans", info.getFormStationName(), info.getToStationName(), units.size());
        return new Response<>(1, "Success", units);
    }

    @Override
    public Response searchMinStopStations(RoutePlanInfo info, HttpHeaders headers) {
        String fromStationId = queryForStationId(info.getFormStationName(), headers);
        String toStationId = queryForStationId(info.getToStationName(), headers);
        LOGGER.info("[searchMinStopStations] from: {}, to: {}", fromStationId, toStationId);
        ResponseEntity<Response<ArrayList<Route>>> re = restTemplate.exchange(
                ROUTES_URL + fromStationId + "/" + toStationId, HttpMethod.GET, new HttpEntity<>(headers),
                new ParameterizedTypeReference<Response<ArrayList<Route>>>() { });
        List<Route> routes = re.getBody().getData();
        if (routes == null) {
            routes = Collections.emptyList();
        }

        List<Route> byStops = new ArrayList<>(routes);
        byStops.sort(Comparator.comparingInt(r -> stopsBetween(r, fromStationId, toStationId)));
        List<String> routeIds = new ArrayList<>();
        for (Route route : byStops.subList(0, Math.min(MAX_PLANS, byStops.size()))) {
            routeIds.add(route.getId());
        }
        return new Response<>(1, "Success.", routeIds);
    }

    private static int stopsBetween(Route route, String fromStationId, String toStationId) {
        List<String> stations = route.getStations();
        return stations.indexOf(toStationId) - stations.indexOf(fromStationId);
    }

    private static float economyFare(TripResponse trip) {
        return Float.parseFloat(trip.getPriceForEconomyClass());
    }

    private static RoutePlanResultUnit toUnit(TripResponse trip) {
        RoutePlanResultUnit unit = new RoutePlanResultUnit();
        unit.setTripId(trip.getTripId().toString());
        unit.setTrainTypeId(trip.getTrainTypeId());
        unit.setFromStationName(trip.getStartingStation());
        unit.setToStationName(trip.getTerminalStation());
        unit.setStartingTime(trip.getStartingTime());
        unit.setEndTime(trip.getEndTime());
        unit.setPriceForFirstClassSeat(trip.getPriceForConfortClass());
        unit.setPriceForSecondClassSeat(trip.getPriceForEconomyClass());
        return unit;
    }

    private String queryForStationId(String stationName, HttpHeaders headers) {
        ResponseEntity<Response<String>> re = restTemplate.exchange(STATION_ID_URL + stationName, HttpMethod.GET,
                new HttpEntity<>(headers), new ParameterizedTypeReference<Response<String>>() { });
        return re.getBody().getData();
    }

    private List<TripResponse> getTripFromHighSpeedTravelServive(TripInfo info, HttpHeaders headers) {
        return leftTrips(HIGH_SPEED_TRIPS_URL, info, headers);
    }

    private List<TripResponse> getTripFromNormalTrainTravelService(TripInfo info, HttpHeaders headers) {
        return leftTrips(NORMAL_TRIPS_URL, info, headers);
    }

    private List<TripResponse> leftTrips(String url, TripInfo info, HttpHeaders headers) {
        ResponseEntity<Response<ArrayList<TripResponse>>> re = restTemplate.exchange(url, HttpMethod.POST,
                new HttpEntity<>(info, headers), new ParameterizedTypeReference<Response<ArrayList<TripResponse>>>() { });
        Response<ArrayList<TripResponse>> body = re.getBody();
        if (body == null || body.getData() == null) {
            return Collections.emptyList();
        }
        return body.getData();
    }
}

package fdse.microservice.service;

import edu.fudan.common.util.Response;
import fdse.microservice.entity.PriceConfig;
import fdse.microservice.entity.Route;
import fdse.microservice.entity.TrainType;
import fdse.microservice.entity.Travel;
import fdse.microservice.entity.TravelResult;
import fdse.microservice.entity.Trip;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

import java.util.HashMap;
import java.util.List;

/**
 * Assembles the basic facts of a trip for the travel services: do both stations exist, which
 * train type runs it, and what economy and first class seats cost between the two stops.
 */
@Service
public class BasicServiceImpl implements BasicService {

    private static final Logger LOGGER = LoggerFactory.getLogger(BasicServiceImpl.class);

    private static final String STATION_ID_URL = "http://ts-station-service:12345/api/v1/stationservice/stations/id/";
    private static final String TRAIN_URL = "http://ts-train-service:14567/api/v1/trainservice/trains/";
    private static final String ROUTE_URL = "http://ts-route-service:11178/api/v1/routeservice/routes/";
    private static final String PRICE_URL = "http://ts-price-service:16579/api/v1/priceservice/prices/";

    /** Quoted when the route, the stops on it or its price config cannot be resolved. */
    private static final String FALLBACK_ECONOMY = "95.0";
    private static final String FALLBACK_CONFORT = "120.0";

    private static final ParameterizedTypeReference<Response<TrainType>> TRAIN_TYPE =
            new ParameterizedTypeReference<Response<TrainType>>() { };
    private static final ParameterizedTypeReference<Response<Route>> ROUTE =
            new ParameterizedTypeReference<Response<Route>>() { };
    private static final ParameterizedTypeReference<Response<PriceConfig>> PRICE_CONFIG =
            new ParameterizedTypeReference<Response<PriceConfig>>() { };

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response queryForTravel(Travel info, HttpHeaders headers) {
        TravelResult result = new TravelResult();
        result.setStatus(true);
        result.setPercent(1.0);
        String problem = null;

        if (!checkStationExists(info.getStartingPlace(), headers) || !checkStationExists(info.getEndPlace(), headers)) {
            problem = "Start place or end place not exist!";
        }

        Trip trip = info.getTrip();
        TrainType trainType = queryTrainType(trip.getTrainTypeId(), headers);
        if (trainType == null) {
            LOGGER.info("[queryForTravel] train type {} doesn't exist", trip.getTrainTypeId());
            problem = "Train type doesn't exist";
        } else {
            result.setTrainType(trainType);
        }

        Route route = getRouteByRouteId(trip.getRouteId(), headers);
        String trainTypeId = trainType == null ? "" : trainType.getId();
        PriceConfig priceConfig = queryPriceConfigByRouteIdAndTrainType(trip.getRouteId(), trainTypeId, headers);
        String fromId = (String) queryForStationId(info.getStartingPlace(), headers).getData();
        String toId = (String) queryForStationId(info.getEndPlace(), headers).getData();
        result.setPrices(priceTable(route, priceConfig, fromId, toId));

        if (problem != null) {
            result.setStatus(false);
            return new Response<>(0, problem, result);
        }
        return new Response<>(1, "Success", result);
    }

    @Override
    public Response queryForStationId(String stationName, HttpHeaders headers) {
        LOGGER.info("[queryForStationId] stationName: {}", stationName);
        return restTemplate.exchange(STATION_ID_URL + stationName, HttpMethod.GET,
                new HttpEntity<>(headers), Response.class).getBody();
    }

    public boolean checkStationExists(String stationName, HttpHeaders headers) {
        Response lookup = queryForStationId(stationName, headers);
        return lookup != null && lookup.getStatus() != null && lookup.getStatus() == 1;
    }

    public TrainType queryTrainType(String trainTypeId, HttpHeaders headers) {
        Response<TrainType> reply = restTemplate.exchange(TRAIN_URL + trainTypeId, HttpMethod.GET,
                new HttpEntity<>(headers), TRAIN_TYPE).getBody();
        return reply == null ? null : reply.getData();
    }

    private Route getRouteByRouteId(String routeId, HttpHeaders headers) {
        Response<Route> reply = restTemplate.exchange(ROUTE_URL + routeId, HttpMethod.GET,
                new HttpEntity<>(headers), ROUTE).getBody();
        if (reply == null || reply.getStatus() == null || reply.getStatus() == 0) {
            LOGGER.error("[getRouteByRouteId] Get Route Fail, routeId: {}", routeId);
            return null;
        }
        return reply.getData();
    }

    private PriceConfig queryPriceConfigByRouteIdAndTrainType(String routeId, String trainType, HttpHeaders headers) {
        Response<PriceConfig> reply = restTemplate.exchange(PRICE_URL + routeId + "/" + trainType, HttpMethod.GET,
                new HttpEntity<>(headers), PRICE_CONFIG).getBody();
        return reply == null ? null : reply.getData();
    }

    /** Seat prices between two stops: distance travelled times the rate of each class. */
    private static HashMap<String, String> priceTable(Route route, PriceConfig priceConfig, String fromId, String toId) {
        HashMap<String, String> prices = new HashMap<>();
        prices.put("economyClass", FALLBACK_ECONOMY);
        prices.put("confortClass", FALLBACK_CONFORT);
        if (route == null || priceConfig == null) {
            return prices;
        }
        List<Integer> distances = route.getDistances();
        int from = route.getStations().indexOf(fromId);
        int to = route.getStations().indexOf(toId);
        if (from < 0 || to < 0 || Math.max(from, to) >= distances.size()) {
            return prices;
        }
        int distance = distances.get(to) - distances.get(from);
        prices.put("economyClass", String.valueOf(distance * priceConfig.getBasicPriceRate()));
        prices.put("confortClass", String.valueOf(distance * priceConfig.getFirstClassPriceRate()));
        return prices;
    }
}

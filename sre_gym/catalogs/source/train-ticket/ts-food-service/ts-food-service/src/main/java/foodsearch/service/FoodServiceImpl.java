package foodsearch.service;

import edu.fudan.common.util.Response;
import foodsearch.entity.AllTripFood;
import foodsearch.entity.FoodOrder;
import foodsearch.entity.FoodStore;
import foodsearch.entity.Route;
import foodsearch.entity.TrainFood;
import foodsearch.repository.FoodOrderRepository;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
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

/**
 * Food for a journey: what is served on the train (from ts-food-map-service) and which food
 * stores can be reached at the stations between boarding and leaving the train.
 */
@Service
public class FoodServiceImpl implements FoodService {

    private static final Logger log = LoggerFactory.getLogger(FoodServiceImpl.class);

    private static final String FOOD_MAP_API = "http://ts-food-map-service:18855/api/v1/foodmapservice";
    private static final String TRAVEL_API = "http://ts-travel-service:12346/api/v1/travelservice";
    private static final String STATION_API = "http://ts-station-service:12345/api/v1/stationservice";

    /** Food type of a meal bought from a station store (1 is a meal served on board). */
    private static final int STATION_STORE_FOOD = 2;

    @Autowired
    private RestTemplate restTemplate;

    @Autowired
    private FoodOrderRepository foodOrderRepository;

    @Override
    public Response createFoodOrder(FoodOrder addFoodOrder, HttpHeaders headers) {
        if (foodOrderRepository.findByOrderId(addFoodOrder.getOrderId()) != null) {
            log.error("[createFoodOrder] order {} already has a food order", addFoodOrder.getOrderId());
            return new Response<>(0, "Order Id Has Existed.", null);
        }
        FoodOrder order = new FoodOrder();
        order.setId(UUID.randomUUID());
        order.setOrderId(addFoodOrder.getOrderId());
        order.setFoodType(addFoodOrder.getFoodType());
        order.setFoodName(addFoodOrder.getFoodName());
        order.setPrice(addFoodOrder.getPrice());
        if (addFoodOrder.getFoodType() == STATION_STORE_FOOD) {
            order.setStationName(addFoodOrder.getStationName());
            order.setStoreName(addFoodOrder.getStoreName());
        }
        foodOrderRepository.save(order);
        return new Response<>(1, "Success.", order);
    }

    @Override
    public Response getAllFood(String date, String startStation, String endStation, String tripId, HttpHeaders headers) {
        log.info("[getAllFood] date: {}, trip: {}, {} -> {}", date, tripId, startStation, endStation);
        if (tripId == null || tripId.length() < 3) {
            return new Response<>(0, "Trip id is not suitable", null);
        }
        AllTripFood result = new AllTripFood();

        Response<Route> routeReply = fetchRoute(tripId);
        if (routeReply == null || routeReply.getStatus() != 1) {
            log.warn("[getAllFood] no route for trip {}", tripId);
            return new Response<>(0, "Get All Food Failed", result);
        }
        List<String> stations = routeReply.getData().getStations();
        if (startStation != null && !startStation.isEmpty()) {
            stations = segment(stations, queryForStationId(startStation, headers), queryForStationId(endStation, headers));
        }

        List<FoodStore> stores = fetchStores(stations);
        if (stores.isEmpty()) {
            return new Response<>(0, "Get All Food Failed", result);
        }
        result.setTrainFoodList(fetchTrainFood(tripId));
        result.setFoodStoreListMap(groupByStation(stations, stores));
        return new Response<>(1, "Get All Food Success", result);
    }

    private List<TrainFood> fetchTrainFood(String tripId) {
        ResponseEntity<Response<List<TrainFood>>> reply = restTemplate.exchange(
                FOOD_MAP_API + "/trainfoods/" + tripId, HttpMethod.GET, new HttpEntity<>(null),
                new ParameterizedTypeReference<Response<List<TrainFood>>>() { });
        Response<List<TrainFood>> body = reply.getBody();
        return body == null ? null : body.getData();
    }

    private Response<Route> fetchRoute(String tripId) {
        ResponseEntity<Response<Route>> reply = restTemplate.exchange(
                TRAVEL_API + "/routes/" + tripId, HttpMethod.GET, new HttpEntity<>(null),
                new ParameterizedTypeReference<Response<Route>>() { });
        return reply.getBody();
    }

    private List<FoodStore> fetchStores(List<String> stationIds) {
        ResponseEntity<Response<List<FoodStore>>> reply = restTemplate.exchange(
                FOOD_MAP_API + "/foodstores", HttpMethod.POST, new HttpEntity<>(stationIds),
                new ParameterizedTypeReference<Response<List<FoodStore>>>() { });
        Response<List<FoodStore>> body = reply.getBody();
        if (body == null || body.getData() == null) {
            return Collections.emptyList();
        }
        return body.getData();
    }

    /** The stations from the boarding station up to the leaving station, both included. */
    private static List<String> segment(List<String> stations, String fromId, String toId) {
        int first = Math.max(stations.indexOf(fromId), 0);
        int last = stations.lastIndexOf(toId);
        if (last < first) {
            last = stations.size() - 1;
        }
        return new ArrayList<>(stations.subList(first, last + 1));
    }

    private static Map<String, List<FoodStore>> groupByStation(List<String> stations, List<FoodStore> stores) {
        Map<String, List<FoodStore>> byStation = new LinkedHashMap<>();
        for (String stationId : stations) {
            List<FoodStore> here = stores.stream()
                    .filter(store -> stationId.equals(store.getStationId()))
                    .collect(Collectors.toList());
            byStation.put(stationId, here);
        }
        return byStation;
    }

    private String queryForStationId(String stationName, HttpHeaders headers) {
        ResponseEntity<Response<String>> reply = restTemplate.exchange(
                STATION_API + "/stations/id/" + stationName, HttpMethod.GET, new HttpEntity<>(headers),
                new ParameterizedTypeReference<Response<String>>() { });
        Response<String> body = reply.getBody();
        return body == null ? null : body.getData();
    }
}

package foodsearch.controller;

import java.util.List;
import foodsearch.service.FoodMapService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.web.bind.annotation.*;

import static org.springframework.http.ResponseEntity.ok;

/**
 * @author fdse
 */
@RestController
@RequestMapping("/api/v1/foodmapservice")
public class FoodMapController {

    private static final Logger LOGGER = LoggerFactory.getLogger(FoodMapController.class);

    @Autowired
    private FoodMapService foodMapService;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ Food Map Service ] !";
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/foodstores")
    public HttpEntity getAllFoodStores(@RequestHeader HttpHeaders headers) {
        LOGGER.info("[getAllFoodStores][Get all food stores]");
        return ok(foodMapService.listFoodStores(headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/foodstores/{stationId}")
    public HttpEntity getFoodStoresOfStation(@PathVariable String stationId, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[getFoodStoresOfStation][Get food stores by station id]");
        return ok(foodMapService.listFoodStoresByStationId(stationId, headers));
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/foodstores")
    public HttpEntity getFoodStoresByStationIds(@RequestBody List<String> stationIdList, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[getFoodStoresByStationIds][Get food stores by station ids]");
        return ok(foodMapService.getFoodStoresByStationIds(stationIdList));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/trainfoods")
    public HttpEntity getAllTrainFood(@RequestHeader HttpHeaders headers) {
        LOGGER.info("[getAllTrainFood][Get all train food]");
        return ok(foodMapService.listTrainFood(headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/trainfoods/{tripId}")
    public HttpEntity getTrainFoodOfTrip(@PathVariable String tripId, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[getTrainFoodOfTrip][Get train food by trip id][tripId: {}]", tripId);
        return ok(foodMapService.listTrainFoodByTripId(tripId, headers));
    }
}

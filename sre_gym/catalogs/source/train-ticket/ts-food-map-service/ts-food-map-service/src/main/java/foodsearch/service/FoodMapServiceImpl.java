package foodsearch.service;

import edu.fudan.common.util.Response;
import foodsearch.entity.FoodStore;
import foodsearch.entity.TrainFood;
import foodsearch.repository.FoodStoreRepository;
import foodsearch.repository.TrainFoodRepository;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;

/**
 * Read side of the food catalogue: food stores located at stations and the menus served on
 * board a trip. Writes only happen when an administrator registers a new store.
 */
@Service
public class FoodMapServiceImpl implements FoodMapService {

    private static final Logger log = LoggerFactory.getLogger(FoodMapServiceImpl.class);

    @Autowired
    private FoodStoreRepository foodStoreRepository;

    @Autowired
    private TrainFoodRepository trainFoodRepository;

    @Override
    public Response createFoodStore(FoodStore fs, HttpHeaders headers) {
        if (foodStoreRepository.existsById(fs.getId())) {
            log.error("[createFoodStore] store id {} is already registered", fs.getId());
            return new Response<>(0, "Already Exists Id", null);
        }
        FoodStore saved = foodStoreRepository.save(fs);
        return new Response<>(1, "Save Success", saved);
    }

    @Override
    public Response listFoodStores(HttpHeaders headers) {
        List<FoodStore> stores = foodStoreRepository.findAll();
        return nonEmpty(stores, "Foodstore is empty");
    }

    @Override
    public Response listTrainFood(HttpHeaders headers) {
        List<TrainFood> menus = trainFoodRepository.findAll();
        return nonEmpty(menus, "No content");
    }

    @Override
    public Response listFoodStoresByStationId(String stationId, HttpHeaders headers) {
        List<FoodStore> stores = foodStoreRepository.findByStationId(stationId);
        log.debug("[listFoodStoresByStationId] station {}", stationId);
        return nonEmpty(stores, "FoodStore is empty");
    }

    @Override
    public Response listTrainFoodByTripId(String tripId, HttpHeaders headers) {
        List<TrainFood> menus = trainFoodRepository.findByTripId(tripId);
        // an empty menu is a valid answer for a trip; only a missing result is an error
        return present(menus);
    }

    @Override
    public Response getFoodStoresByStationIds(List<String> stationIds) {
        List<FoodStore> stores = foodStoreRepository.findByStationIdIn(stationIds);
        log.debug("[getFoodStoresByStationIds] {} stations asked", stationIds == null ? 0 : stationIds.size());
        return present(stores);
    }

    private static <T> Response nonEmpty(List<T> items, String emptyMessage) {
        if (items == null || items.isEmpty()) {
            return new Response<>(0, emptyMessage, null);
        }
        return new Response<>(1, "Success", items);
    }

    private static <T> Response present(List<T> items) {
        if (items == null) {
            return new Response<>(0, "No content", null);
        }
        return new Response<>(1, "Success", items);
    }
}

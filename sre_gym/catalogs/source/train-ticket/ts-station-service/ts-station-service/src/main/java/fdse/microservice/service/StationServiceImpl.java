package fdse.microservice.service;

import edu.fudan.common.util.Response;
import fdse.microservice.entity.Station;
import fdse.microservice.repository.StationRepository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Translates between station names and station ids for the rest of the system.
 * Every lookup is a query on ts-station-mongo; batch lookups use one query per batch.
 */
@Service
public class StationServiceImpl implements StationService {

    private static final Logger LOGGER = LoggerFactory.getLogger(StationServiceImpl.class);

    private static final String SUCCESS = "Success";

    @Autowired
    private StationRepository repository;

    @Override
    public Response create(Station station, HttpHeaders headers) {
        if (repository.findByName(station.getName()) != null) {
            LOGGER.error("[create] Create station error.Already exists, StationId: {}", station.getId());
            return new Response<>(0, "Already exists", station);
        }
        repository.save(station);
        return new Response<>(1, "Create success", station);
    }

    @Override
    public boolean exist(String stationName, HttpHeaders headers) {
        return repository.findByName(stationName) != null;
    }

    @Override
    public Response queryForId(String stationName, HttpHeaders headers) {
        Station station = repository.findByName(stationName);
        if (station == null) {
            LOGGER.warn("[queryForId] Find station id warn.Station not found, StationName: {}", stationName);
            return new Response<>(0, "Not exists", stationName);
        }
        return new Response<>(1, SUCCESS, station.getId());
    }

    @Override
    public Response queryForIdBatch(List<String> nameList, HttpHeaders headers) {
        List<Station> found = repository.findByNames(nameList);
        Map<String, String> idByName = new HashMap<>();
        for (Station station : found) {
            idByName.put(station.getName(), station.getId());
        }
        // answer in request order; names that are not stations map to null
        Map<String, String> result = new LinkedHashMap<>();
        for (String name : nameList) {
            result.put(name, idByName.get(name));
        }
        if (result.isEmpty()) {
            return new Response<>(0, "No content according to name list", null);
        }
        return new Response<>(1, SUCCESS, result);
    }

    @Override
    public Response queryById(String stationId, HttpHeaders headers) {
        Optional<Station> station = repository.findById(stationId);
        if (!station.isPresent()) {
            LOGGER.error("[queryById] Find station name error.Station not found, StationId: {}", stationId);
            return new Response<>(0, "No that stationId", stationId);
        }
        return new Response<>(1, SUCCESS, station.get().getName());
    }

    @Override
    public Response queryByIdBatch(List<String> idList, HttpHeaders headers) {
        List<String> names = new ArrayList<>(idList.size());
        for (String id : idList) {
            repository.findById(id).map(Station::getName).ifPresent(names::add);
        }
        if (names.isEmpty()) {
            LOGGER.error("[queryByIdBatch] Find station names error.Stations not found, StationIdNumber: {}", idList.size());
            return new Response<>(0, "No stationNamelist according to stationIdList", names);
        }
        return new Response<>(1, SUCCESS, names);
    }
}

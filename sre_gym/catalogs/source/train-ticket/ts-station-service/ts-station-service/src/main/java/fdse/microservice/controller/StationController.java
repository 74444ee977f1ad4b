package fdse.microservice.controller;

import fdse.microservice.entity.Station;
import fdse.microservice.service.StationService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.*;

import java.util.List;

import static org.springframework.http.ResponseEntity.ok;

/**
 * @author fdse
 */
@RestController
@RequestMapping("/api/v1/stationservice")
public class StationController {

    private static final Logger LOGGER = LoggerFactory.getLogger(StationController.class);

    @Autowired
    private StationService stationService;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ Station Service ] !";
    }

    @PostMapping(value = "/stations")
    public ResponseEntity<?> create(@RequestBody Station station, @RequestHeader HttpHeaders headers) {
        return new ResponseEntity<>(stationService.create(station, headers), HttpStatus.CREATED);
    }

    @GetMapping(value = "/stations/id/{stationNameForId}")
    public HttpEntity queryForStationId(@PathVariable(value = "stationNameForId") String stationName,
                                        @RequestHeader HttpHeaders headers) {
        LOGGER.info("Query for station id by station name: {}", stationName);
        return ok(stationService.queryForId(stationName, headers));
    }

    @PostMapping(value = "/stations/idlist")
    public HttpEntity queryForIdBatch(@RequestBody List<String> stationNameList, @RequestHeader HttpHeaders headers) {
        return ok(stationService.queryForIdBatch(stationNameList, headers));
    }

    @GetMapping(value = "/stations/name/{stationIdForName}")
    public HttpEntity queryById(@PathVariable(value = "stationIdForName") String stationId,
                                @RequestHeader HttpHeaders headers) {
        LOGGER.info("Query stations for name by id: {}", stationId);
        return ok(stationService.queryById(stationId, headers));
    }

    @PostMapping(value = "/stations/namelist")
    public HttpEntity queryForNameBatch(@RequestBody List<String> stationIdList, @RequestHeader HttpHeaders headers) {
        return ok(stationService.queryByIdBatch(stationIdList, headers));
    }
}

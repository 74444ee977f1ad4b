package travelplan.controller;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import travelplan.entity.TripInfo;
import travelplan.service.TravelPlanService;
import org.springframework.web.bind.annotation.*;

import static org.springframework.http.ResponseEntity.ok;

/**
 * @author fdse
 */
@RestController
@RequestMapping("/api/v1/travelplanservice")
public class TravelPlanController {

    private static final Logger LOGGER = LoggerFactory.getLogger(TravelPlanController.class);

    @Autowired
    private TravelPlanService travelPlanService;

    @GetMapping(path = "/welcome")
    public String home() {
        return "Welcome to [ TravelPlan Service ] !";
    }

    @PostMapping(value = "/travelPlan/cheapest")
    public HttpEntity getByCheapest(@RequestBody TripInfo queryInfo, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[getByCheapest] From: {} To: {}", queryInfo.getStartingPlace(), queryInfo.getEndPlace());
        return ok(travelPlanService.getCheapest(queryInfo, headers));
    }
}

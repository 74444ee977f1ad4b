package travel.controller;

import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import travel.entity.TripInfo;
import travel.service.TravelService;
import org.springframework.web.bind.annotation.*;

import static org.springframework.http.ResponseEntity.ok;

/**
 * @author Chenjie Xu
 */
@RestController
@RequestMapping("/api/v1/travelservice")
public class TravelController {

    private static final Logger LOGGER = LoggerFactory.getLogger(TravelController.class);

    @Autowired
    private TravelService service;

    @GetMapping(path = "/welcome")
    public String home() {
        return "Welcome to [ Travel Service ] !";
    }

    @CrossOrigin(origins = "*")
    @PostMapping(value = "/trips/left")
    public HttpEntity queryInfo(@RequestBody TripInfo info, @RequestHeader HttpHeaders headers) {
        if (info.getStartingPlace() == null || info.getStartingPlace().length() == 0 ||
                info.getEndPlace() == null || info.getEndPlace().length() == 0 ||
                info.getDepartureTime() == null) {
            LOGGER.info("[queryInfo] Travel Query Fail");
            return ok(new Response<>(0, "Invalid trip query", null));
        }
        LOGGER.info("[queryInfo] Query TripResponse, from: {}, to: {}", info.getStartingPlace(), info.getEndPlace());
        return ok(service.query(info, headers));
    }
}

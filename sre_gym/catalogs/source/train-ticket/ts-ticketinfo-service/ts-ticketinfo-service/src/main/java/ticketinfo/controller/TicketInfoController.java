package ticketinfo.controller;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import ticketinfo.entity.Travel;
import ticketinfo.service.TicketInfoService;
import org.springframework.web.bind.annotation.*;

import static org.springframework.http.ResponseEntity.ok;

/**
 * @author fdse
 */
@RestController
@RequestMapping("/api/v1/ticketinfoservice")
public class TicketInfoController {

    private static final Logger LOGGER = LoggerFactory.getLogger(TicketInfoController.class);

    @Autowired
    private TicketInfoService service;

    @GetMapping(path = "/welcome")
    public String home() {
        return "Welcome to [ TicketInfo Service ] !";
    }

    @PostMapping(value = "/ticketinfo")
    public HttpEntity queryForTravel(@RequestBody Travel info, @RequestHeader HttpHeaders headers) {
        return ok(service.queryForTravel(info, headers));
    }

    @GetMapping(value = "/ticketinfo/{name}")
    public HttpEntity queryForStationId(@PathVariable String name, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[queryForStationId] Station name: {}", name);
        return ok(service.queryForStationId(name, headers));
    }
}

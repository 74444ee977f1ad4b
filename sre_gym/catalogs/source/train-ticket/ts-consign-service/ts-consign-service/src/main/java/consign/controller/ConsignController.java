package consign.controller;

import consign.entity.Consign;
import java.util.UUID;
import consign.service.ConsignService;
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
@RequestMapping("/api/v1/consignservice")
public class ConsignController {

    private static final Logger LOGGER = LoggerFactory.getLogger(ConsignController.class);

    @Autowired
    private ConsignService service;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ Consign Service ] !";
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/consigns")
    public HttpEntity insertConsign(@RequestBody Consign request, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[insertConsign][Insert consign record]");
        return ok(service.insertConsignRecord(request, headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/consigns/account/{id}")
    public HttpEntity findByAccount(@PathVariable String id, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[findByAccount][Find consign by account id][id: {}]", id);
        return ok(service.queryByAccountId(UUID.fromString(id), headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/consigns/order/{id}")
    public HttpEntity findByOrderId(@PathVariable String id, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[findByOrderId][Find consign by order id][id: {}]", id);
        return ok(service.queryByOrderId(UUID.fromString(id), headers));
    }
}

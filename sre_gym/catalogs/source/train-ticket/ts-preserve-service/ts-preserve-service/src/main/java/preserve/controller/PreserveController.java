package preserve.controller;

import edu.fudan.common.util.Response;
import preserve.entity.OrderTicketsInfo;
import preserve.service.PreserveService;
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
@RequestMapping("/api/v1/preserveservice")
public class PreserveController {

    private static final Logger LOGGER = LoggerFactory.getLogger(PreserveController.class);

    @Autowired
    private PreserveService preserveService;

    @GetMapping(path = "/welcome")
    public String home() {
        return "Welcome to [ Preserve Service ] !";
    }

    @CrossOrigin(origins = "*")
    @PostMapping(value = "/preserve")
    public HttpEntity preserve(@RequestBody OrderTicketsInfo oti, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[preserve] Account id: {}", oti.getAccountId());
        return ok(preserveService.preserve(oti, headers));
    }
}

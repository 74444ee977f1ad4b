package adminroute.controller;

import adminroute.entity.RouteInfo;
import adminroute.service.AdminRouteService;
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
@RequestMapping("/api/v1/adminrouteservice")
public class AdminRouteController {

    private static final Logger LOGGER = LoggerFactory.getLogger(AdminRouteController.class);

    @Autowired
    private AdminRouteService adminRouteService;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ AdminRoute Service ] !";
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/adminroute")
    public HttpEntity getAllRoutes(@RequestHeader HttpHeaders headers) {
        LOGGER.info("[getAllRoutes][Get All Routes]");
        return ok(adminRouteService.getAllRoutes(headers));
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/adminroute")
    public HttpEntity addRoute(@RequestBody RouteInfo request, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[addRoute][Create and modify route]");
        return ok(adminRouteService.createAndModifyRoute(request, headers));
    }

    @CrossOrigin(origins = "*")
    @DeleteMapping(path = "/adminroute/{routeId}")
    public HttpEntity deleteRoute(@PathVariable String routeId, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[deleteRoute][Delete route]");
        return ok(adminRouteService.deleteRoute(routeId, headers));
    }
}

package notification.controller;

import notification.entity.NotifyInfo;
import notification.service.NotificationService;
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
@RequestMapping("/api/v1/notifyservice")
public class NotificationController {

    private static final Logger LOGGER = LoggerFactory.getLogger(NotificationController.class);

    @Autowired
    private NotificationService service;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ Notification Service ] !";
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/notification/preserve_success")
    public HttpEntity preserveSuccess(@RequestBody NotifyInfo info, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[preserveSuccess][Send preserve success mail]");
        return ok(service.preserveSuccess(info, headers));
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/notification/order_create_success")
    public HttpEntity orderCreateSuccess(@RequestBody NotifyInfo info, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[orderCreateSuccess][Send order create success mail]");
        return ok(service.orderCreateSuccess(info, headers));
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/notification/order_cancel_success")
    public HttpEntity orderCancelSuccess(@RequestBody NotifyInfo info, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[orderCancelSuccess][Send order cancel success mail]");
        return ok(service.orderCancelSuccess(info, headers));
    }
}

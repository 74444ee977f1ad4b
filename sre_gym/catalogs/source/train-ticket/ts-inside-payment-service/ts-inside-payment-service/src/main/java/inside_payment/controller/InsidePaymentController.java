package inside_payment.controller;

import inside_payment.entity.PaymentInfo;
import inside_payment.service.InsidePaymentService;
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
@RequestMapping("/api/v1/inside_pay_service")
public class InsidePaymentController {

    private static final Logger LOGGER = LoggerFactory.getLogger(InsidePaymentController.class);

    @Autowired
    private InsidePaymentService service;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ InsidePayment Service ] !";
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/inside_payment")
    public HttpEntity pay(@RequestBody PaymentInfo info, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[pay][Inside Pay]");
        return ok(service.pay(info, headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/inside_payment/drawback/{userId}/{money}")
    public HttpEntity drawBack(@PathVariable String userId, @PathVariable String money, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[drawBack][Draw Back Money]");
        return ok(service.drawBack(userId, money, headers));
    }
}

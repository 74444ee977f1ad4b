package consignprice.controller;

import consignprice.entity.ConsignPrice;
import consignprice.service.ConsignPriceService;
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
@RequestMapping("/api/v1/consignpriceservice")
public class ConsignPriceController {

    private static final Logger LOGGER = LoggerFactory.getLogger(ConsignPriceController.class);

    @Autowired
    private ConsignPriceService service;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ ConsignPrice Service ] !";
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/consignprice/{weight}/{isWithinRegion}")
    public HttpEntity getPriceByWeightAndRegion(@PathVariable String weight, @PathVariable String isWithinRegion, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[getPriceByWeightAndRegion][Get price by weight and region]");
        return ok(service.getPriceByWeightAndRegion(Double.parseDouble(weight), Boolean.parseBoolean(isWithinRegion), headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/consignprice/price")
    public HttpEntity getPriceInfo(@RequestHeader HttpHeaders headers) {
        LOGGER.info("[getPriceInfo][Get price information]");
        return ok(service.queryPriceInformation(headers));
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/consignprice")
    public HttpEntity modifyPriceConfig(@RequestBody ConsignPrice priceConfig, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[modifyPriceConfig][Create and modify price config]");
        return ok(service.createAndModifyPrice(priceConfig, headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/consignprice/config")
    public HttpEntity getPriceConfig(@RequestHeader HttpHeaders headers) {
        LOGGER.info("[getPriceConfig][Get price config]");
        return ok(service.getPriceConfig(headers));
    }
}

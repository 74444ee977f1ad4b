package config.controller;

import config.entity.Config;
import config.service.ConfigService;
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
@RequestMapping("/api/v1/configservice")
public class ConfigController {

    private static final Logger LOGGER = LoggerFactory.getLogger(ConfigController.class);

    @Autowired
    private ConfigService configService;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ Config Service ] !";
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/configs")
    public HttpEntity queryAll(@RequestHeader HttpHeaders headers) {
        LOGGER.info("[queryAll][Query all configs]");
        return ok(configService.queryAll(headers));
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/configs")
    public HttpEntity createConfig(@RequestBody Config info, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[createConfig][Create config]");
        return ok(configService.create(info, headers));
    }

    @CrossOrigin(origins = "*")
    @PutMapping(path = "/configs")
    public HttpEntity updateConfig(@RequestBody Config info, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[updateConfig][Update config]");
        return ok(configService.update(info, headers));
    }

    @CrossOrigin(origins = "*")
    @DeleteMapping(path = "/configs/{configName}")
    public HttpEntity deleteConfig(@PathVariable String configName, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[deleteConfig][Delete config][configName: {}]", configName);
        return ok(configService.delete(configName, headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/configs/{configName}")
    public HttpEntity retrieve(@PathVariable String configName, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[retrieve][Retrieve config][configName: {}]", configName);
        return ok(configService.query(configName, headers));
    }
}

package auth.controller;

import auth.dto.BasicAuthDto;
import auth.exception.UserOperationException;
import auth.service.TokenService;
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
@RequestMapping("/api/v1/users")
public class TokenController {

    private static final Logger LOGGER = LoggerFactory.getLogger(TokenController.class);

    @Autowired
    private TokenService tokenService;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ Auth Service ] !";
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/login")
    public HttpEntity getToken(@RequestBody BasicAuthDto dao, @RequestHeader HttpHeaders headers)
            throws UserOperationException {
        LOGGER.info("[getToken][Login]");
        return ok(tokenService.getToken(dao, headers));
    }
}

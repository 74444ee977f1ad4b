package user.controller;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import user.dto.UserDto;
import user.service.UserService;
import org.springframework.web.bind.annotation.*;

import static org.springframework.http.ResponseEntity.ok;

/**
 * @author fdse
 */
@RestController
@RequestMapping("/api/v1/userservice/users")
public class UserController {

    private static final Logger LOGGER = LoggerFactory.getLogger(UserController.class);

    @Autowired
    private UserService userService;

    @GetMapping(path = "/hello")
    public String home() {
        return "Welcome to [ User Service ] !";
    }

    @GetMapping
    public HttpEntity getAllUser(@RequestHeader HttpHeaders headers) {
        return ok(userService.getAllUsers(headers));
    }

    @GetMapping(value = "/{userName}")
    public HttpEntity getUserByUserName(@PathVariable String userName, @RequestHeader HttpHeaders headers) {
        return ok(userService.findByUserName(userName, headers));
    }

    @GetMapping(value = "/id/{userId}")
    public HttpEntity getUserByUserId(@PathVariable String userId, @RequestHeader HttpHeaders headers) {
        return ok(userService.findByUserId(userId, headers));
    }

    @PostMapping(value = "/register")
    public HttpEntity registerUser(@RequestBody UserDto userDto, @RequestHeader HttpHeaders headers) {
        return ok(userService.saveUser(userDto, headers));
    }
}

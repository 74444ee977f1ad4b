package adminuser.controller;

import adminuser.dto.UserDto;
import adminuser.service.AdminUserService;
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
@RequestMapping("/api/v1/adminuserservice/users")
public class AdminUserController {

    private static final Logger LOGGER = LoggerFactory.getLogger(AdminUserController.class);

    @Autowired
    private AdminUserService adminUserService;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ AdminUser Service ] !";
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "")
    public HttpEntity getAllUsers(@RequestHeader HttpHeaders headers) {
        LOGGER.info("[getAllUsers][Get all users]");
        return ok(adminUserService.getAllUsers(headers));
    }

    @CrossOrigin(origins = "*")
    @PutMapping(path = "")
    public HttpEntity updateUser(@RequestBody UserDto userDto, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[updateUser][Update User]");
        return ok(adminUserService.updateUser(userDto, headers));
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "")
    public HttpEntity addUser(@RequestBody UserDto userDto, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[addUser][Add User]");
        return ok(adminUserService.addUser(userDto, headers));
    }

    @CrossOrigin(origins = "*")
    @DeleteMapping(path = "/{userId}")
    public HttpEntity deleteUser(@PathVariable String userId, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[deleteUser][Delete User]");
        return ok(adminUserService.deleteUser(userId, headers));
    }
}

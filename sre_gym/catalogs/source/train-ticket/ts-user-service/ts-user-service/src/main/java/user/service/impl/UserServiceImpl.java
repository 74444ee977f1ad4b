package user.service.impl;

import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;
import user.dto.AuthDto;
import user.dto.UserDto;
import user.entity.User;
import user.repository.UserRepository;
import user.service.UserService;

import java.util.List;
import java.util.UUID;

/**
 * User profiles. Registering a user also creates its login in ts-auth-service, which owns the
 * credentials; user names are unique.
 */
@Service
public class UserServiceImpl implements UserService {

    private static final Logger LOGGER = LoggerFactory.getLogger(UserServiceImpl.class);

    private static final String AUTH_SERVICE_URI = "http://ts-auth-service:12340/api/v1";

    @Autowired
    private UserRepository userRepository;

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response saveUser(UserDto userDto, HttpHeaders headers) {
        String userName = userDto.getUserName();
        LOGGER.info("[saveUser] Save User Name id: {}", userName);
        if (userRepository.findByUserName(userName) != null) {
            LOGGER.error("[saveUser] Save user error.User already exists,UserId: {}", userDto.getUserId());
            return new Response<>(0, "USER HAS ALREADY EXISTS", null);
        }

        UUID userId = userDto.getUserId() != null ? userDto.getUserId() : UUID.randomUUID();
        User user = User.builder()
                .userId(userId)
                .userName(userName)
                .password(userDto.getPassword())
                .gender(userDto.getGender())
                .documentType(userDto.getDocumentType())
                .documentNum(userDto.getDocumentNum())
                .email(userDto.getEmail())
                .build();

        // the login must exist before the profile does
        createDefaultAuthUser(AuthDto.builder()
                .userId(userId.toString())
                .userName(userName)
                .password(userDto.getPassword())
                .build());
        User saved = userRepository.save(user);
        LOGGER.info("[saveUser] Send authorization message to ts-auth-service....");
        return new Response<>(1, "REGISTER USER SUCCESS", saved);
    }

    private Response createDefaultAuthUser(AuthDto dto) {
        ResponseEntity<Response<AuthDto>> reply = restTemplate.exchange(
                AUTH_SERVICE_URI + "/auth",
                HttpMethod.POST,
                new HttpEntity<>(dto, null),
                new ParameterizedTypeReference<Response<AuthDto>>() { });
        return reply.getBody();
    }

    @Override
    public Response getAllUsers(HttpHeaders headers) {
        List<User> users = userRepository.findAll();
        if (users == null || users.isEmpty()) {
            LOGGER.warn("[getAllUsers] Get all users warn: {}", "No Content");
            return new Response<>(0, "NO User", null);
        }
        return new Response<>(1, "Success", users);
    }

    @Override
    public Response findByUserName(String userName, HttpHeaders headers) {
        User user = userRepository.findByUserName(userName);
        if (user == null) {
            LOGGER.warn("[findByUserName] Get user by name warn,User Name: {}", userName);
            return new Response<>(0, "No User", null);
        }
        return new Response<>(1, "Find User Success", user);
    }

    @Override
    public Response findByUserId(String userId, HttpHeaders headers) {
        User user = userRepository.findByUserId(UUID.fromString(userId));
        if (user == null) {
            LOGGER.error("[findByUserId] Get user by id error,UserId: {}", userId);
            return new Response<>(0, "No User by this id", null);
        }
        return new Response<>(1, "Find User Success", user);
    }
}

package adminuser.service;

import adminuser.entity.User;
import adminuser.entity.UserDto;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

import java.util.List;

/**
 * User administration: list, register, update and delete accounts held by ts-user-service.
 */
@Service
public class AdminUserServiceImpl implements AdminUserService {

    private static final Logger LOGGER = LoggerFactory.getLogger(AdminUserServiceImpl.class);

    private static final String USER_SERVICE_IP_URI = "http://ts-user-service:12342/api/v1/userservice/users";

    private static final ParameterizedTypeReference<Response<List<User>>> USER_LIST =
            new ParameterizedTypeReference<Response<List<User>>>() { };
    private static final ParameterizedTypeReference<Response<User>> ONE_USER =
            new ParameterizedTypeReference<Response<User>>() { };

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response getAllUsers(HttpHeaders headers) {
        Response<List<User>> users = restTemplate
                .exchange(USER_SERVICE_IP_URI, HttpMethod.GET, new HttpEntity<>(headers), USER_LIST)
                .getBody();
        if (users == null) {
            LOGGER.warn("[getAllUsers] user service returned no body");
            return new Response<>(0, "User service unavailable", null);
        }
        LOGGER.info("[getAllUsers] status: {}, users: {}", users.getStatus(),
                users.getData() == null ? 0 : users.getData().size());
        return users;
    }

    @Override
    public Response deleteUser(String userId, HttpHeaders headers) {
        LOGGER.info("[deleteUser] user id: {}", userId);
        return restTemplate
                .exchange(USER_SERVICE_IP_URI + "/" + userId, HttpMethod.DELETE, new HttpEntity<>(headers), Response.class)
                .getBody();
    }

    @Override
    public Response updateUser(UserDto userDto, HttpHeaders headers) {
        LOGGER.info("[updateUser] user name: {}", userDto.getUserName());
        return restTemplate
                .exchange(USER_SERVICE_IP_URI, HttpMethod.PUT, new HttpEntity<>(userDto, headers), Response.class)
                .getBody();
    }

    @Override
    public Response addUser(UserDto userDto, HttpHeaders headers) {
        LOGGER.info("[addUser] registering user {}", userDto.getUserName());
        return restTemplate
                .exchange(USER_SERVICE_IP_URI + "/register", HttpMethod.POST, new HttpEntity<>(userDto, headers), ONE_USER)
                .getBody();
    }
}

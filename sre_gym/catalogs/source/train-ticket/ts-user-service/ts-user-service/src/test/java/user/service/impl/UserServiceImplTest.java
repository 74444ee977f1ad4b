package user.service.impl;

import edu.fudan.common.util.Response;
import org.junit.Assert;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.Mockito;
import org.mockito.MockitoAnnotations;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.web.client.RestTemplate;
import user.dto.UserDto;
import user.entity.User;
import user.repository.UserRepository;

import java.util.UUID;

public class UserServiceImplTest {

    @InjectMocks
    private UserServiceImpl userService;

    @Mock
    private UserRepository userRepository;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testFindByUserIdMissing() {
        Mockito.when(userRepository.findByUserId(Mockito.any(UUID.class))).thenReturn(null);

        Response result = userService.findByUserId(UUID.randomUUID().toString(), headers);

        Assert.assertEquals(new Response<>(0, "No User by this id", null), result);
    }

    @Test
    public void testSaveUserExists() {
        UserDto dto = new UserDto();
        dto.setUserName("fdse_microservice");
        Mockito.when(userRepository.findByUserName("fdse_microservice")).thenReturn(new User());

        Response result = userService.saveUser(dto, headers);

        Assert.assertEquals(new Response<>(0, "USER HAS ALREADY EXISTS", null), result);
        Mockito.verify(restTemplate, Mockito.never()).exchange(Mockito.anyString(), Mockito.any(HttpMethod.class),
                Mockito.any(HttpEntity.class), Mockito.any(ParameterizedTypeReference.class));
    }
}

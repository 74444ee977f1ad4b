package adminuser.service;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.when;

import edu.fudan.common.util.Response;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;

public class AdminUserServiceImplTest {

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private AdminUserServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testDeleteUser() {
        Response deleted = new Response<>(1, "DELETE SUCCESS", null);
        when(restTemplate.exchange(eq("http://ts-user-service:12342/api/v1/userservice/users/user_id"),
                eq(HttpMethod.DELETE), any(HttpEntity.class), eq(Response.class)))
                .thenReturn(ResponseEntity.ok(deleted));
        assertSame(deleted, service.deleteUser("user_id", headers));
    }

    @Test
    public void testGetAllUsersWithoutBody() {
        when(restTemplate.exchange(eq("http://ts-user-service:12342/api/v1/userservice/users"),
                eq(HttpMethod.GET), any(HttpEntity.class), any(ParameterizedTypeReference.class)))
                .thenReturn(ResponseEntity.ok().build());
        assertEquals(Integer.valueOf(0), service.getAllUsers(headers).getStatus());
    }
}

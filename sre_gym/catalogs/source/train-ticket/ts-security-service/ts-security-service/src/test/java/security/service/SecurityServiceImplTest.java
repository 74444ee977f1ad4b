package security.service;

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
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;
import security.entity.OrderSecurity;
import security.entity.SecurityConfig;
import security.repository.SecurityRepository;

public class SecurityServiceImplTest {

    @InjectMocks
    private SecurityServiceImpl securityService;

    @Mock
    private SecurityRepository securityRepository;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private static SecurityConfig limit(String name, String value) {
        SecurityConfig config = new SecurityConfig();
        config.setName(name);
        config.setValue(value);
        return config;
    }

    @Test
    public void testAddNewSecurityConfigExists() {
        SecurityConfig existing = limit("max_order_1_hour", "5");
        Mockito.when(securityRepository.findByName("max_order_1_hour")).thenReturn(existing);

        Response result = securityService.addNewSecurityConfig(existing, headers);

        Assert.assertEquals(new Response<>(0, "Security Config Already Exist", null), result);
        Mockito.verify(securityRepository, Mockito.never()).save(Mockito.any(SecurityConfig.class));
    }

    @Test
    public void testCheckTooMuchOrder() {
        OrderSecurity stats = new OrderSecurity();
        stats.setOrderNumInLastOneHour(3);
        stats.setOrderNumOfValidOrder(1);
        ResponseEntity<Response<OrderSecurity>> reply =
                new ResponseEntity<>(new Response<>(1, "ok", stats), HttpStatus.OK);
        Mockito.when(restTemplate.exchange(Mockito.anyString(), Mockito.eq(HttpMethod.GET),
                Mockito.any(HttpEntity.class), Mockito.any(ParameterizedTypeReference.class))).thenReturn(reply);
        Mockito.when(securityRepository.findByName("max_order_1_hour")).thenReturn(limit("max_order_1_hour", "5"));
        Mockito.when(securityRepository.findByName("max_order_not_use")).thenReturn(limit("max_order_not_use", "10"));

        Response result = securityService.check("4d2a46c7", headers);

        Assert.assertEquals(0, result.getStatus().intValue());
        Assert.assertEquals("Too much order in last one hour or too much valid order", result.getMsg());
    }
}

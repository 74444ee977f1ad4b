package preserve.service;

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
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestTemplate;
import preserve.entity.OrderTicketsInfo;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.startsWith;
import static org.mockito.Mockito.when;

public class PreserveServiceImplTest {

    private static final String ACCOUNT = "4d2a46c7-71cb-4cf1-b5bb-b68406d9da6f";

    @InjectMocks
    private PreserveServiceImpl service;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private OrderTicketsInfo request() {
        OrderTicketsInfo oti = new OrderTicketsInfo();
        oti.setAccountId(ACCOUNT);
        oti.setContactsId("contacts-1");
        return oti;
    }

    @Test
    public void testPreserveSecurityFails() {
        Response rejected = new Response<>(0, "Too much order in last one hour", null);
        when(restTemplate.exchange(startsWith("http://ts-security-service:11188/"), eq(HttpMethod.GET),
                any(HttpEntity.class), eq(Response.class)))
                .thenReturn(new ResponseEntity<>(rejected, HttpStatus.OK));
        assertEquals(new Response<>(0, "Too much order in last one hour", null), service.preserve(request(), headers));
    }

    @Test
    @SuppressWarnings("unchecked")
    public void testPreserveContactsMissing() {
        when(restTemplate.exchange(startsWith("http://ts-security-service:11188/"), eq(HttpMethod.GET),
                any(HttpEntity.class), eq(Response.class)))
                .thenReturn(new ResponseEntity<>(new Response<>(1, "Success", null), HttpStatus.OK));
        Response noContacts = new Response<>(0, "No contacts according to contacts id", null);
        when(restTemplate.exchange(startsWith("http://ts-contacts-service:12347/"), eq(HttpMethod.GET),
                any(HttpEntity.class), any(ParameterizedTypeReference.class)))
                .thenReturn(new ResponseEntity<>(noContacts, HttpStatus.OK));
        assertEquals(new Response<>(0, "No contacts according to contacts id", null), service.preserve(request(), headers));
    }
}

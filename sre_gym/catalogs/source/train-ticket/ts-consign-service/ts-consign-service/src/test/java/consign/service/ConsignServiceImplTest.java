package consign.service;

import consign.entity.Consign;
import consign.entity.ConsignRecord;
import consign.repository.ConsignRepository;
import edu.fudan.common.util.Response;
import java.util.Collections;
import java.util.UUID;
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

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.when;

public class ConsignServiceImplTest {

    @Mock
    private ConsignRepository repository;

    @Mock
    private RestTemplate restTemplate;

    @InjectMocks
    private ConsignServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testQueryByAccountIdEmpty() {
        UUID account = UUID.randomUUID();
        when(repository.findByAccountId(account)).thenReturn(Collections.emptyList());
        Response<?> result = service.queryByAccountId(account, headers);
        assertEquals(Integer.valueOf(0), result.getStatus());
    }

    @Test
    @SuppressWarnings("unchecked")
    public void testInsertConsignRecord() {
        Consign request = new Consign();
        request.setOrderId(UUID.randomUUID());
        request.setWeight(3.0);
        request.setWithin(true);
        when(restTemplate.exchange(anyString(), eq(HttpMethod.GET), any(HttpEntity.class), any(ParameterizedTypeReference.class)))
                .thenReturn(ResponseEntity.ok(new Response<>(1, "Success", 11.5)));
        when(repository.save(any(ConsignRecord.class))).thenAnswer(call -> call.getArgument(0));

        Response<?> result = service.insertConsignRecord(request, headers);
        assertEquals(11.5, ((ConsignRecord) result.getData()).getPrice(), 1e-9);
    }
}

package assurance.service;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import assurance.entity.Assurance;
import assurance.entity.AssuranceType;
import assurance.entity.AssuranceTypeBean;
import assurance.repository.AssuranceRepository;
import edu.fudan.common.util.Response;
import java.util.List;
import java.util.UUID;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;

public class AssuranceServiceImplTest {

    @Mock
    private AssuranceRepository assuranceRepository;

    @InjectMocks
    private AssuranceServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testCreateAlreadyExists() {
        UUID orderId = UUID.randomUUID();
        when(assuranceRepository.findByOrderId(orderId)).thenReturn(new Assurance());

        Response result = service.create(1, orderId.toString(), headers);

        assertEquals("Fail.Assurance already exists", result.getMsg());
        verify(assuranceRepository, never()).save(any(Assurance.class));
    }

    @Test
    public void testGetAllAssuranceTypes() {
        Response result = service.getAllAssuranceTypes(headers);

        assertEquals("Find All Assurance", result.getMsg());
        List<?> types = (List<?>) result.getData();
        assertEquals(AssuranceType.values().length, types.size());
        AssuranceTypeBean first = (AssuranceTypeBean) types.get(0);
        assertEquals(AssuranceType.values()[0].getPrice(), first.getPrice(), 0.0);
    }
}

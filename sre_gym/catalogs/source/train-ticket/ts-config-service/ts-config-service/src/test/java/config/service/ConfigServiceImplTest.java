package config.service;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import config.entity.Config;
import config.repository.ConfigRepository;
import edu.fudan.common.util.Response;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;

public class ConfigServiceImplTest {

    @Mock
    private ConfigRepository repository;

    @InjectMocks
    private ConfigServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testQueryNoContent() {
        when(repository.findByName(anyString())).thenReturn(null);
        Response result = service.query("name", headers);
        assertEquals(Integer.valueOf(0), result.getStatus());
        assertEquals("No content", result.getMsg());
    }

    @Test
    public void testQuery() {
        Config proportion = new Config("DirectTicketAllocationProportion", "0.5", "");
        when(repository.findByName("DirectTicketAllocationProportion")).thenReturn(proportion);
        Response result = service.query("DirectTicketAllocationProportion", headers);
        assertEquals(Integer.valueOf(1), result.getStatus());
        assertSame(proportion, result.getData());
    }

    @Test
    public void testCreateDuplicateIsRejected() {
        when(repository.findByName("DirectTicketAllocationProportion")).thenReturn(new Config());
        Response result = service.create(new Config("DirectTicketAllocationProportion", "0.3", ""), headers);
        assertEquals(Integer.valueOf(0), result.getStatus());
        verify(repository, never()).save(any(Config.class));
    }
}

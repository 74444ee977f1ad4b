package fdse.microservice.service;

import edu.fudan.common.util.Response;
import fdse.microservice.entity.Station;
import fdse.microservice.repository.StationRepository;
import org.junit.Assert;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.Mockito;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;

public class StationServiceImplTest {

    @InjectMocks
    private StationServiceImpl stationService;

    @Mock
    private StationRepository repository;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testQueryForIdMissing() {
        Mockito.when(repository.findByName("atlantis")).thenReturn(null);

        Response result = stationService.queryForId("atlantis", headers);

        Assert.assertEquals(new Response<>(0, "Not exists", "atlantis"), result);
    }

    @Test
    public void testQueryById() {
        Mockito.when(repository.findById("nanjing")).thenReturn(Optional.of(new Station("nanjing", "Nanjing")));

        Response result = stationService.queryById("nanjing", headers);

        Assert.assertEquals(new Response<>(1, "Success", "Nanjing"), result);
    }

    @Test
    public void testQueryForIdBatchKeepsUnknownNames() {
        Mockito.when(repository.findByNames(Mockito.anyList()))
                .thenReturn(Collections.singletonList(new Station("suzhou", "Suzhou")));

        Response result = stationService.queryForIdBatch(Arrays.asList("Suzhou", "Atlantis"), headers);

        Map<?, ?> ids = (Map<?, ?>) result.getData();
        Assert.assertEquals("suzhou", ids.get("Suzhou"));
        Assert.assertTrue(ids.containsKey("Atlantis"));
        Assert.assertNull(ids.get("Atlantis"));
    }
}

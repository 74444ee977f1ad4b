package price.service;

import edu.fudan.common.util.Response;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;
import price.entity.PriceConfig;
import price.repository.PriceConfigRepository;

import java.util.Optional;
import java.util.UUID;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

public class PriceServiceImplTest {

    @InjectMocks
    private PriceServiceImpl service;

    @Mock
    private PriceConfigRepository priceConfigRepository;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testFindByRouteIdAndTrainTypeMissing() {
        when(priceConfigRepository.findByRouteIdAndTrainType(anyString(), anyString())).thenReturn(null);
        assertEquals(new Response<>(0, "No that config", null),
                service.findByRouteIdAndTrainType("route-1", "GaoTieOne", headers));
    }

    @Test
    public void testFindByRouteIdAndTrainTypeFound() {
        PriceConfig config = new PriceConfig();
        config.setBasicPriceRate(0.38);
        config.setFirstClassPriceRate(1.0);
        when(priceConfigRepository.findByRouteIdAndTrainType(anyString(), anyString())).thenReturn(config);
        assertEquals(new Response<>(1, "Success", config),
                service.findByRouteIdAndTrainType("route-1", "GaoTieOne", headers));
    }

    @Test
    public void testDeleteUnknownConfig() {
        PriceConfig config = new PriceConfig();
        config.setId(UUID.randomUUID());
        when(priceConfigRepository.findById(any(UUID.class))).thenReturn(Optional.empty());
        assertEquals(new Response<>(0, "No that config", null), service.deletePriceConfig(config, headers));
        verify(priceConfigRepository, never()).delete(any(PriceConfig.class));
    }
}

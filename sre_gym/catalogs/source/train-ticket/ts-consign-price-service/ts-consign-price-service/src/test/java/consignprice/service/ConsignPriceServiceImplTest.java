package consignprice.service;

import consignprice.entity.ConsignPrice;
import consignprice.repository.ConsignPriceConfigRepository;
import edu.fudan.common.util.Response;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

public class ConsignPriceServiceImplTest {

    @Mock
    private ConsignPriceConfigRepository repository;

    @InjectMocks
    private ConsignPriceServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
        ConsignPrice tariff = new ConsignPrice();
        tariff.setInitialWeight(5.0);
        tariff.setInitialPrice(8.0);
        tariff.setWithinPrice(2.0);
        tariff.setBeyondPrice(3.5);
        when(repository.findByIndex(0)).thenReturn(tariff);
    }

    @Test
    public void testGetPriceByWeightAndRegion() {
        assertEquals(8.0, (double) service.getPriceByWeightAndRegion(4.0, true, headers).getData(), 1e-9);
        assertEquals(12.0, (double) service.getPriceByWeightAndRegion(7.0, true, headers).getData(), 1e-9);
        assertEquals(15.0, (double) service.getPriceByWeightAndRegion(7.0, false, headers).getData(), 1e-9);
    }

    @Test
    public void testCreateAndModifyPriceKeepsIndexZero() {
        ConsignPrice update = new ConsignPrice();
        update.setIndex(7);
        update.setInitialPrice(9.0);
        Response<?> result = service.createAndModifyPrice(update, headers);
        assertEquals(0, ((ConsignPrice) result.getData()).getIndex());
        verify(repository).save(any(ConsignPrice.class));
    }
}

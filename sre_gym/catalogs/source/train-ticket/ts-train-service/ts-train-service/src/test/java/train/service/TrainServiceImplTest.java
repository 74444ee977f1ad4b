package train.service;

import org.junit.Assert;
import org.junit.Before;
import org.junit.Test;
import org.mockito.ArgumentCaptor;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.Mockito;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;
import train.entity.TrainType;
import train.repository.TrainTypeRepository;

import java.util.Optional;

public class TrainServiceImplTest {

    @InjectMocks
    private TrainServiceImpl trainService;

    @Mock
    private TrainTypeRepository repository;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testRetrieveMissing() {
        Mockito.when(repository.findById("no-such-type")).thenReturn(Optional.empty());

        Assert.assertNull(trainService.retrieve("no-such-type", headers));
    }

    @Test
    public void testCreate() {
        TrainType dongChe = new TrainType("DongCheOne", 800, 120, 200);
        Mockito.when(repository.findByName("DongCheOne")).thenReturn(null);

        Assert.assertTrue(trainService.create(dongChe, headers));

        ArgumentCaptor<TrainType> saved = ArgumentCaptor.forClass(TrainType.class);
        Mockito.verify(repository).save(saved.capture());
        Assert.assertEquals(200, saved.getValue().getAverageSpeed());
    }

    @Test
    public void testCreateDuplicate() {
        TrainType existing = new TrainType("DongCheOne", 800, 120, 200);
        Mockito.when(repository.findByName("DongCheOne")).thenReturn(existing);

        Assert.assertFalse(trainService.create(existing, headers));
        Mockito.verify(repository, Mockito.never()).save(Mockito.any(TrainType.class));
    }
}

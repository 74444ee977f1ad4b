package seat.service;

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
import seat.entity.Config;
import seat.entity.LeftTicketInfo;
import seat.entity.Seat;

import java.util.Arrays;

public class SeatServiceImplTest {

    @InjectMocks
    private SeatServiceImpl seatService;

    @Mock
    private RestTemplate restTemplate;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private void soldTicketsReply(LeftTicketInfo info) {
        ResponseEntity<Response<LeftTicketInfo>> reply =
                new ResponseEntity<>(new Response<>(1, "ok", info), HttpStatus.OK);
        Mockito.when(restTemplate.exchange(Mockito.contains("tickets"), Mockito.eq(HttpMethod.POST),
                Mockito.any(HttpEntity.class), Mockito.any(ParameterizedTypeReference.class))).thenReturn(reply);
    }

    @Test
    public void testDistributeSeatWithoutSoldTickets() {
        soldTicketsReply(null);
        Seat request = new Seat();
        request.setTrainNumber("G1234");
        request.setTotalNum(10);

        Response result = seatService.distributeSeat(request, headers);

        Assert.assertEquals("Use a new seat number!", result.getMsg());
    }

    @Test
    public void testGetLeftTicketOfInterval() {
        soldTicketsReply(null);
        Config proportion = new Config();
        proportion.setValue("0.5");
        ResponseEntity<Response<Config>> configReply =
                new ResponseEntity<>(new Response<>(1, "ok", proportion), HttpStatus.OK);
        Mockito.when(restTemplate.exchange(Mockito.contains("configservice"), Mockito.eq(HttpMethod.GET),
                Mockito.any(HttpEntity.class), Mockito.any(ParameterizedTypeReference.class))).thenReturn(configReply);
        Seat request = new Seat();
        request.setTrainNumber("D1345");
        request.setTotalNum(100);
        request.setStations(Arrays.asList("shanghai", "suzhou", "nanjing"));
        request.setStartStation("shanghai");
        request.setDestStation("nanjing");

        Response result = seatService.getLeftTicketOfInterval(request, headers);

        Assert.assertEquals("Get Left Ticket of Internal Success", result.getMsg());
        Assert.assertEquals(50, result.getData());
    }
}

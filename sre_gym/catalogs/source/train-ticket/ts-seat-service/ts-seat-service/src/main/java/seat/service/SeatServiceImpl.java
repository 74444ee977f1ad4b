package seat.service;

import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;
import seat.entity.Config;
import seat.entity.LeftTicketInfo;
import seat.entity.Seat;
import seat.entity.Ticket;

import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Picks seats for new tickets and counts the seats still free on a section of a route.
 * Sold tickets come from the order services (high-speed trains from ts-order-service,
 * the others from ts-order-other-service); the share of seats kept for passengers riding
 * the whole route is a ts-config-service setting.
 */
@Service
public class SeatServiceImpl implements SeatService {

    private static final Logger LOGGER = LoggerFactory.getLogger(SeatServiceImpl.class);

    private static final String HIGH_SPEED_TICKETS_URL =
            "http://ts-order-service:12031/api/v1/orderservice/order/tickets";
    private static final String OTHER_TICKETS_URL =
            "http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther/tickets";
    private static final String CONFIG_URL = "http://ts-config-service:15679/api/v1/configservice/configs/";
    private static final String DIRECT_PROPORTION = "DirectTicketAllocationProportion";

    private final Random random = new Random();

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response distributeSeat(Seat seatRequest, HttpHeaders headers) {
        String boarding = seatRequest.getStartStation();
        Ticket ticket = new Ticket();
        ticket.setStartStation(boarding);
        ticket.setDestStation(seatRequest.getDestStation());

        int range = seatRequest.getTotalNum();
        int seat = random.nextInt(range) + 1;

        LeftTicketInfo sold = getSoldTickets(seatRequest, headers);
        if (sold != null && sold.getSoldTickets() != null) {
            Set<Ticket> soldTickets = sold.getSoldTickets();
            List<String> stations = seatRequest.getStations();
            int boardAt = stations.indexOf(boarding);
            for (Ticket previous : soldTickets) {
                // the earlier passenger gets off before this one gets on, so the seat can be sold again
                if (stations.indexOf(previous.getDestStation()) < boardAt) {
                    ticket.setSeatNo(previous.getSeatNo());
                    LOGGER.info("[distributeSeat] Use the previous distributed seat number! {}", previous.getSeatNo());
                    return new Response<>(1, "Use the previous distributed seat number!", ticket);
                }
            }
            while (isContained(soldTickets, seat)) {
                seat = random.nextInt(range) + 1;
            }
        }
        ticket.setSeatNo(seat);
        LOGGER.info("[distributeSeat] Use a new seat number! {}", seat);
        return new Response<>(1, "Use a new seat number!", ticket);
    }

    @Override
    public Response getLeftTicketOfInterval(Seat seatRequest, HttpHeaders headers) {
        List<String> stations = seatRequest.getStations();
        String boarding = seatRequest.getStartStation();
        int reusable = 0;
        int soldCount = 0;

        LeftTicketInfo sold = getSoldTickets(seatRequest, headers);
        if (sold != null && sold.getSoldTickets() != null) {
            int boardAt = stations.indexOf(boarding);
            for (Ticket previous : sold.getSoldTickets()) {
                soldCount++;
                if (stations.indexOf(previous.getDestStation()) < boardAt) {
                    reusable++;
                }
            }
        }

        boolean wholeRoute = boarding.equals(stations.get(0))
                && seatRequest.getDestStation().equals(stations.get(stations.size() - 1));
        double direct = getDirectProportion(headers);
        double share = wholeRoute ? direct : 1.0 - direct;
        int neverSold = (int) (seatRequest.getTotalNum() * share) - soldCount;

        return new Response<>(1, "Get Left Ticket of Internal Success", reusable + neverSold);
    }

    private boolean isContained(Set<Ticket> soldTickets, int seat) {
        for (Ticket t : soldTickets) {
            if (t.getSeatNo() == seat) {
                return true;
            }
        }
        return false;
    }

    private LeftTicketInfo getSoldTickets(Seat seatRequest, HttpHeaders headers) {
        String trainNumber = seatRequest.getTrainNumber();
        boolean highSpeed = trainNumber.startsWith("G") || trainNumber.startsWith("D");
        String url = highSpeed ? HIGH_SPEED_TICKETS_URL : OTHER_TICKETS_URL;

        ResponseEntity<Response<LeftTicketInfo>> reply = restTemplate.exchange(
                url,
                HttpMethod.POST,
                new HttpEntity<>(seatRequest, null),
                new ParameterizedTypeReference<Response<LeftTicketInfo>>() { });
        Response<LeftTicketInfo> body = reply.getBody();
        return body == null ? null : body.getData();
    }

    private double getDirectProportion(HttpHeaders headers) {
        ResponseEntity<Response<Config>> reply = restTemplate.exchange(
                CONFIG_URL + DIRECT_PROPORTION,
                HttpMethod.GET,
                HttpEntity.EMPTY,
                new ParameterizedTypeReference<Response<Config>>() { });
        Config config = reply.getBody().getData();
        LOGGER.info("[getDirectProportion] Configs is : {}", config);
        return Double.parseDouble(config.getValue());
    }
}

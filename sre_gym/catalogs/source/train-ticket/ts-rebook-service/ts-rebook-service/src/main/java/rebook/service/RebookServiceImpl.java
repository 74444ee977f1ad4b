package rebook.service;

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
import rebook.entity.*;

import java.math.BigDecimal;
import java.util.Calendar;
import java.util.Date;

/**
 * Changes a paid ticket to another train on the same stretch. The traveller pays the
 * difference when the new ticket is dearer and is refunded when it is cheaper.
 */
@Service
public class RebookServiceImpl implements RebookService {

    private static final Logger LOGGER = LoggerFactory.getLogger(RebookServiceImpl.class);

    /** A ticket can still be changed up to two hours after its train left. */
    private static final long CHANGE_WINDOW_MILLIS = 2L * 60 * 60 * 1000;

    private static final String ORDER_URL = "http://ts-order-service:12031/api/v1/orderservice/order";
    private static final String ORDER_OTHER_URL = "http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther";
    private static final String TRAVEL_DETAIL_URL = "http://ts-travel-service:12346/api/v1/travelservice/trip_detail";
    private static final String TRAVEL2_DETAIL_URL = "http://ts-travel2-service:16346/api/v1/travel2service/trip_detail";
    private static final String STATION_NAME_URL = "http://ts-station-service:12345/api/v1/stationservice/stations/name/";
    private static final String DRAWBACK_URL = "http://ts-inside-payment-service:18673/api/v1/inside_pay_service/inside_payment/drawback/";
    private static final String SEAT_URL = "http://ts-seat-service:18898/api/v1/seatservice/seats";

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response rebook(RebookInfo info, HttpHeaders httpHeaders) {
        Response<Order> orderReply = getOrderByRebookInfo(info, httpHeaders);
        if (orderReply.getStatus() != 1) {
            return new Response<>(0, orderReply.getMsg(), null);
        }
        Order order = orderReply.getData();
        String refusal = refusalFor(order.getStatus());
        if (refusal != null) {
            return new Response<>(0, refusal, null);
        }
        if (!checkTime(order.getTravelDate(), order.getTravelTime())) {
            return new Response<>(0, "You can only change the ticket before the train start or within 2 hours after the train start.", null);
        }

        // only train, date and seat may change: the stretch stays the one of the original order
        TripAllDetailInfo query = new TripAllDetailInfo();
        query.setTripId(info.getTripId());
        query.setTravelDate(info.getDate());
        query.setFrom(queryForStationName(order.getFrom(), httpHeaders));
        query.setTo(queryForStationName(order.getTo(), httpHeaders));
        Response<TripAllDetail> detailReply = getTripAllDetailInformation(query, info.getTripId(), httpHeaders);
        if (detailReply.getStatus() == 0) {
            return new Response<>(0, detailReply.getMsg(), null);
        }
        TripAllDetail detail = detailReply.getData();
        TripResponse trip = detail.getTripResponse();
        boolean firstClass = info.getSeatType() == SeatClass.FIRSTCLASS.getCode();
        int seatsLeft = firstClass ? trip.getConfortClass() : trip.getEconomyClass();
        if (seatsLeft <= 0) {
            return new Response<>(0, "Seat Not Enough", null);
        }

        String ticketPrice = firstClass ? trip.getPriceForConfortClass() : trip.getPriceForEconomyClass();
        BigDecimal priceOld = new BigDecimal(order.getPrice());
        BigDecimal priceNew = new BigDecimal(ticketPrice);
        int comparison = priceOld.compareTo(priceNew);
        if (comparison < 0) {
            Order orderMoneyDifference = new Order();
            orderMoneyDifference.setDifferenceMoney(priceNew.subtract(priceOld).toString());
            return new Response<>(2, "Please pay the different money!", orderMoneyDifference);
        }
        if (comparison > 0) {
            String refund = priceOld.subtract(priceNew).toString();
            LOGGER.info("[rebook] refunding {} to {} for order {}", refund, info.getLoginId(), order.getId());
            if (!drawBackMoney(info.getLoginId(), refund, httpHeaders)) {
                return new Response<>(0, "Can't draw back the difference money, please try again!", null);
            }
        }
        return updateOrder(order, info, detail, ticketPrice, httpHeaders);
    }

    /** Why an order in this state cannot be changed, or null when it can. */
    private static String refusalFor(int status) {
        if (status == OrderStatus.PAID.getCode()) {
            return null;
        }
        if (status == OrderStatus.NOTPAID.getCode()) {
            return "You haven't paid the original ticket!";
        }
        if (status == OrderStatus.CHANGE.getCode()) {
            return "You have already changed your ticket and you can only change one time.";
        }
        if (status == OrderStatus.COLLECTED.getCode()) {
            return "You have already collected your ticket and you can change it now.";
        }
        return "You can't change your ticket.";
    }

    private static boolean isHighSpeed(String tripId) {
        return tripId.startsWith("G") || tripId.startsWith("D");
    }

    private boolean checkTime(Date travelDate, Date travelTime) {
        Calendar clock = Calendar.getInstance();
        clock.setTime(travelTime);
        Calendar departure = Calendar.getInstance();
        departure.setTime(travelDate);
        departure.set(Calendar.HOUR_OF_DAY, clock.get(Calendar.HOUR_OF_DAY));
        departure.set(Calendar.MINUTE, clock.get(Calendar.MINUTE));
        departure.set(Calendar.SECOND, 0);
        departure.set(Calendar.MILLISECOND, 0);
        return System.currentTimeMillis() <= departure.getTimeInMillis() + CHANGE_WINDOW_MILLIS;
    }

    private Response<Order> getOrderByRebookInfo(RebookInfo info, HttpHeaders httpHeaders) {
        String base = isHighSpeed(info.getOldTripId()) ? ORDER_URL : ORDER_OTHER_URL;
        ResponseEntity<Response<Order>> re = restTemplate.exchange(base + "/" + info.getOrderId(), HttpMethod.GET,
                new HttpEntity<>(httpHeaders), new ParameterizedTypeReference<Response<Order>>() { });
        return re.getBody();
    }

    private Response<TripAllDetail> getTripAllDetailInformation(TripAllDetailInfo gtdi, String tripId, HttpHeaders httpHeaders) {
        String url = isHighSpeed(tripId) ? TRAVEL_DETAIL_URL : TRAVEL2_DETAIL_URL;
        ResponseEntity<Response<TripAllDetail>> re = restTemplate.exchange(url, HttpMethod.POST,
                new HttpEntity<>(gtdi, httpHeaders), new ParameterizedTypeReference<Response<TripAllDetail>>() { });
        return re.getBody();
    }

    private String queryForStationName(String stationId, HttpHeaders httpHeaders) {
        ResponseEntity<Response> re = restTemplate.exchange(STATION_NAME_URL + stationId, HttpMethod.GET,
                new HttpEntity(httpHeaders), Response.class);
        return (String) re.getBody().getData();
    }

    private boolean drawBackMoney(String userId, String money, HttpHeaders httpHeaders) {
        ResponseEntity<Response> re = restTemplate.exchange(DRAWBACK_URL + userId + "/" + money, HttpMethod.GET,
                new HttpEntity(httpHeaders), Response.class);
        Response body = re.getBody();
        return body != null && body.getStatus() == 1;
    }

    private Response updateOrder(Order order, RebookInfo info, TripAllDetail gtdr, String ticketPrice, HttpHeaders httpHeaders) {
        Ticket ticket = dipatchSeat(info.getDate(), info.getTripId(), order.getFrom(), order.getTo(), info.getSeatType(), httpHeaders);
        order.setTrainNumber(info.getTripId());
        order.setTravelDate(info.getDate());
        order.setTravelTime(gtdr.getTripResponse().getStartingTime());
        order.setSeatClass(info.getSeatType());
        order.setSeatNumber(String.valueOf(ticket.getSeatNo()));
        order.setPrice(ticketPrice);
        order.setBoughtDate(new Date());
        order.setStatus(OrderStatus.CHANGE.getCode());
        String url = isHighSpeed(info.getTripId()) ? ORDER_URL : ORDER_OTHER_URL;
        ResponseEntity<Response> re = restTemplate.exchange(url, HttpMethod.PUT, new HttpEntity<>(order, httpHeaders),
                Response.class);
        LOGGER.info("[updateOrder] order {} moved to trip {}", order.getId(), info.getTripId());
        return new Response<>(1, "Success!", re.getBody().getData());
    }

    private Ticket dipatchSeat(Date date, String tripId, String startStationId, String endStataionId, int seatType, HttpHeaders httpHeaders) {
        Seat seat = new Seat();
        seat.setTrainNumber(tripId);
        seat.setTravelDate(date);
        seat.setStartStation(startStationId);
        seat.setDestStation(endStataionId);
        seat.setSeatType(seatType);
        ResponseEntity<Response<Ticket>> re = restTemplate.exchange(SEAT_URL, HttpMethod.POST,
                new HttpEntity<>(seat, httpHeaders), new ParameterizedTypeReference<Response<Ticket>>() { });
        return re.getBody().getData();
    }
}

package preserve.service;

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
import preserve.entity.*;

import java.util.Date;
import java.util.Map;
import java.util.UUID;

/**
 * Ticket booking for G/D (high-speed) trains: trips from ts-travel-service, orders in ts-order-service.
 *
 * <p>A booking runs in steps: security check, contacts, seat availability, order creation,
 * then the optional extras (assurance, food, consign) and finally the e-mail notification.
 * Failures of the extras are logged but do not undo the order.
 */
@Service
public class PreserveServiceImpl implements PreserveService {

    private static final Logger LOGGER = LoggerFactory.getLogger(PreserveServiceImpl.class);

    private static final String SECURITY_URL = "http://ts-security-service:11188/api/v1/securityservice/securityConfigs/";
    private static final String CONTACTS_URL = "http://ts-contacts-service:12347/api/v1/contactservice/contacts/";
    private static final String TRIP_DETAIL_URL = "http://ts-travel-service:12346/api/v1/travelservice/trip_detail";
    private static final String STATION_ID_URL = "http://ts-station-service:12345/api/v1/stationservice/stations/id/";
    private static final String TICKET_INFO_URL = "http://ts-ticketinfo-service:15681/api/v1/ticketinfoservice/ticketinfo";
    private static final String SEAT_URL = "http://ts-seat-service:18898/api/v1/seatservice/seats";
    private static final String CREATE_ORDER_URL = "http://ts-order-service:12031/api/v1/orderservice/order";
    private static final String ASSURANCE_URL = "http://ts-assurance-service:18888/api/v1/assuranceservice/assurances/";
    private static final String FOOD_URL = "http://ts-food-service:18856/api/v1/foodservice/orders";
    private static final String CONSIGN_URL = "http://ts-consign-service:16111/api/v1/consignservice/consigns";
    private static final String USER_URL = "http://ts-user-service:12342/api/v1/userservice/users/id/";
    private static final String NOTIFY_URL = "http://ts-notification-service:17853/api/v1/notifyservice/notification/preserve_success";

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response preserve(OrderTicketsInfo oti, HttpHeaders headers) {
        LOGGER.info("[preserve] Step 1. Check Security, accountId: {}", oti.getAccountId());
        Response security = checkSecurity(oti.getAccountId(), headers);
        if (security.getStatus() == 0) {
            return new Response<>(0, security.getMsg(), null);
        }

        LOGGER.info("[preserve] Step 2. Find contacts, contactsId: {}", oti.getContactsId());
        Response<Contacts> contactsReply = getContactsById(oti.getContactsId(), headers);
        if (contactsReply.getStatus() == 0) {
            return new Response<>(0, contactsReply.getMsg(), null);
        }
        Contacts contacts = contactsReply.getData();

        LOGGER.info("[preserve] Step 3. Check tickets num, tripId: {}", oti.getTripId());
        Response<TripAllDetail> detailReply = getTripAllDetailInformation(detailQuery(oti), headers);
        if (detailReply.getStatus() == 0) {
            return new Response<>(0, detailReply.getMsg(), null);
        }
        TripAllDetail detail = detailReply.getData();
        if (!hasFreeSeat(detail.getTripResponse(), oti.getSeatType())) {
            return new Response<>(0, "Seat Not Enough", null);
        }

        LOGGER.info("[preserve] Step 4. Do Order");
        Order order = draftOrder(oti, contacts, detail, headers);
        LOGGER.info("[preserve] Order price is: {}", order.getPrice());
        Response<Order> cor = createOrder(order, headers);
        if (cor.getStatus() == 0) {
            return new Response<>(0, cor.getMsg(), null);
        }
        Response booked = new Response<>(1, "Success.", cor.getMsg());

        addExtras(oti, cor.getData(), headers);

        // Step 8: tell the traveller
        User user = getAccount(order.getAccountId().toString(), headers);
        NotifyInfo notifyInfo = new NotifyInfo();
        notifyInfo.setEmail(user.getEmail());
        notifyInfo.setUsername(user.getUserName());
        notifyInfo.setOrderNumber(order.getId().toString());
        notifyInfo.setDate(new Date().toString());
        notifyInfo.setStartingPlace(order.getFrom());
        notifyInfo.setEndPlace(order.getTo());
        notifyInfo.setStartingTime(order.getTravelTime().toString());
        notifyInfo.setSeatClass(SeatClass.getNameByCode(order.getSeatClass()));
        notifyInfo.setSeatNumber(order.getSeatNumber());
        notifyInfo.setPrice(order.getPrice());
        sendEmail(notifyInfo, headers);

        return booked;
    }

    private static TripAllDetailInfo detailQuery(OrderTicketsInfo oti) {
        TripAllDetailInfo query = new TripAllDetailInfo();
        query.setTripId(oti.getTripId());
        query.setTravelDate(oti.getDate());
        query.setFrom(oti.getFrom());
        query.setTo(oti.getTo());
        return query;
    }

    private static boolean hasFreeSeat(TripResponse trip, int seatType) {
        int left = seatType == SeatClass.FIRSTCLASS.getCode() ? trip.getConfortClass() : trip.getEconomyClass();
        return left > 0;
    }

    /** Fills the order from the request, the contacts and the trip, and reserves its seat. */
    private Order draftOrder(OrderTicketsInfo oti, Contacts contacts, TripAllDetail detail, HttpHeaders headers) {
        Order order = new Order();
        order.setId(UUID.randomUUID());
        order.setAccountId(UUID.fromString(oti.getAccountId()));
        order.setTrainNumber(oti.getTripId());
        order.setBoughtDate(new Date());
        order.setStatus(OrderStatus.NOTPAID.getCode());
        order.setContactsName(contacts.getName());
        order.setDocumentType(contacts.getDocumentType());
        order.setContactsDocumentNumber(contacts.getDocumentNumber());
        order.setTravelDate(oti.getDate());
        order.setTravelTime(detail.getTripResponse().getStartingTime());

        String fromId = queryForStationId(oti.getFrom(), headers);
        String toId = queryForStationId(oti.getTo(), headers);
        order.setFrom(fromId);
        order.setTo(toId);

        Map<String, String> prices = queryPrices(detail.getTrip(), oti, headers);
        boolean firstClass = oti.getSeatType() == SeatClass.FIRSTCLASS.getCode();
        int seatClass = firstClass ? SeatClass.FIRSTCLASS.getCode() : SeatClass.SECONDCLASS.getCode();
        Ticket ticket = dipatchSeat(oti.getDate(), order.getTrainNumber(), fromId, toId, seatClass, headers);
        order.setSeatClass(seatClass);
        order.setSeatNumber(String.valueOf(ticket.getSeatNo()));
        order.setPrice(prices.get(firstClass ? "confortClass" : "economyClass"));
        return order;
    }

    /** Steps 5 to 7: assurance, food and consign, each only when the traveller asked for it. */
    private void addExtras(OrderTicketsInfo oti, Order saved, HttpHeaders headers) {
        if (oti.getAssurance() != 0) {
            Response reply = addAssuranceForOrder(oti.getAssurance(), saved.getId().toString(), headers);
            if (reply == null || reply.getStatus() != 1) {
                LOGGER.warn("[preserve] Step 5. Buy Assurance Fail, orderId: {}", saved.getId());
            }
        }
        if (oti.getFoodType() != 0) {
            FoodOrder food = new FoodOrder();
            food.setOrderId(saved.getId());
            food.setFoodType(oti.getFoodType());
            food.setFoodName(oti.getFoodName());
            food.setPrice(oti.getFoodPrice());
            Response reply = postForResponse(FOOD_URL, food, headers);
            if (reply == null || reply.getStatus() != 1) {
                LOGGER.warn("[preserve] Step 6. Buy Food Fail, orderId: {}", saved.getId());
            }
        }
        String consignee = oti.getConsigneeName();
        if (consignee != null && !consignee.isEmpty()) {
            Consign consign = new Consign();
            consign.setOrderId(saved.getId());
            consign.setAccountId(saved.getAccountId());
            consign.setHandleDate(oti.getHandleDate());
            consign.setTargetDate(saved.getTravelDate().toString());
            consign.setFrom(saved.getFrom());
            consign.setTo(saved.getTo());
            consign.setConsignee(consignee);
            consign.setPhone(oti.getConsigneePhone());
            consign.setWeight(oti.getConsigneeWeight());
            consign.setWithin(oti.isWithin());
            Response reply = postForResponse(CONSIGN_URL, consign, headers);
            if (reply == null || reply.getStatus() != 1) {
                LOGGER.warn("[preserve] Step 7. Consign Fail, orderId: {}", saved.getId());
            }
        }
    }

    private Map<String, String> queryPrices(Trip trip, OrderTicketsInfo oti, HttpHeaders headers) {
        Travel travel = new Travel();
        travel.setTrip(trip);
        travel.setStartingPlace(oti.getFrom());
        travel.setEndPlace(oti.getTo());
        travel.setDepartureTime(new Date());
        ResponseEntity<Response<TravelResult>> re = restTemplate.exchange(TICKET_INFO_URL, HttpMethod.POST,
                new HttpEntity<>(travel, headers), new ParameterizedTypeReference<Response<TravelResult>>() { });
        return re.getBody().getData().getPrices();
    }

    public Ticket dipatchSeat(Date date, String tripId, String startStationId, String endStataionId, int seatType,
                              HttpHeaders httpHeaders) {
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

    public boolean sendEmail(NotifyInfo notifyInfo, HttpHeaders httpHeaders) {
        LOGGER.info("[sendEmail] notify {} about order {}", notifyInfo.getUsername(), notifyInfo.getOrderNumber());
        ResponseEntity<Boolean> re = restTemplate.exchange(NOTIFY_URL, HttpMethod.POST,
                new HttpEntity<>(notifyInfo, httpHeaders), Boolean.class);
        return Boolean.TRUE.equals(re.getBody());
    }

    public User getAccount(String accountId, HttpHeaders httpHeaders) {
        ResponseEntity<Response<User>> re = restTemplate.exchange(USER_URL + accountId, HttpMethod.GET,
                new HttpEntity<>(httpHeaders), new ParameterizedTypeReference<Response<User>>() { });
        return re.getBody().getData();
    }

    private Response addAssuranceForOrder(int assuranceType, String orderId, HttpHeaders httpHeaders) {
        String url = ASSURANCE_URL + assuranceType + "/" + orderId;
        return restTemplate.exchange(url, HttpMethod.GET, new HttpEntity(httpHeaders), Response.class).getBody();
    }

    private Response postForResponse(String url, Object body, HttpHeaders httpHeaders) {
        return restTemplate.exchange(url, HttpMethod.POST, new HttpEntity<>(body, httpHeaders), Response.class).getBody();
    }

    private String queryForStationId(String stationName, HttpHeaders httpHeaders) {
        ResponseEntity<Response<String>> re = restTemplate.exchange(STATION_ID_URL + stationName, HttpMethod.GET,
                new HttpEntity<>(httpHeaders), new ParameterizedTypeReference<Response<String>>() { });
        return re.getBody().getData();
    }

    private Response checkSecurity(String accountId, HttpHeaders httpHeaders) {
        return restTemplate.exchange(SECURITY_URL + accountId, HttpMethod.GET, new HttpEntity(httpHeaders),
                Response.class).getBody();
    }

    private Response<TripAllDetail> getTripAllDetailInformation(TripAllDetailInfo gtdi, HttpHeaders httpHeaders) {
        ResponseEntity<Response<TripAllDetail>> re = restTemplate.exchange(TRIP_DETAIL_URL, HttpMethod.POST,
                new HttpEntity<>(gtdi, httpHeaders), new ParameterizedTypeReference<Response<TripAllDetail>>() { });
        return re.getBody();
    }

    private Response<Contacts> getContactsById(String contactsId, HttpHeaders httpHeaders) {
        ResponseEntity<Response<Contacts>> re = restTemplate.exchange(CONTACTS_URL + contactsId, HttpMethod.GET,
                new HttpEntity<>(httpHeaders), new ParameterizedTypeReference<Response<Contacts>>() { });
        return re.getBody();
    }

    private Response<Order> createOrder(Order order, HttpHeaders httpHeaders) {
        ResponseEntity<Response<Order>> re = restTemplate.exchange(CREATE_ORDER_URL, HttpMethod.POST,
                new HttpEntity<>(order, httpHeaders), new ParameterizedTypeReference<Response<Order>>() { });
        return re.getBody();
    }
}

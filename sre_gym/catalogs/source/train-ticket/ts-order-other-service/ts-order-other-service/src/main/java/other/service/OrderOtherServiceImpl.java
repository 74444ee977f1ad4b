package other.service;

import edu.fudan.common.util.Response;
import other.entity.*;
import other.repository.OrderOtherRepository;
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

import java.util.*;
import java.util.function.Consumer;

/**
 * Order storage of ts-order-other-service: persistence in ts-order-other-mongo, sold-seat views for the seat
 * service and station-name resolution for the order list pages.
 */
@Service
public class OrderOtherServiceImpl implements OrderOtherService {

    private static final Logger LOGGER = LoggerFactory.getLogger(OrderOtherServiceImpl.class);

    private static final String SUCCESS = "Success";

    private static final String STATION_NAMES_URL =
            "http://ts-station-service:12345/api/v1/stationservice/stations/namelist";

    /** Seat class code -> how an order of that class is counted in a {@link SoldTicket}. */
    private static final Map<Integer, Consumer<SoldTicket>> SEAT_COUNTERS = new HashMap<>();

    static {
        SEAT_COUNTERS.put(SeatClass.NONE.getCode(), t -> t.setNoSeat(t.getNoSeat() + 1));
        SEAT_COUNTERS.put(SeatClass.BUSINESS.getCode(), t -> t.setBusinessSeat(t.getBusinessSeat() + 1));
        SEAT_COUNTERS.put(SeatClass.FIRSTCLASS.getCode(), t -> t.setFirstClassSeat(t.getFirstClassSeat() + 1));
        SEAT_COUNTERS.put(SeatClass.SECONDCLASS.getCode(), t -> t.setSecondClassSeat(t.getSecondClassSeat() + 1));
        SEAT_COUNTERS.put(SeatClass.HARDSEAT.getCode(), t -> t.setHardSeat(t.getHardSeat() + 1));
        SEAT_COUNTERS.put(SeatClass.SOFTSEAT.getCode(), t -> t.setSoftSeat(t.getSoftSeat() + 1));
        SEAT_COUNTERS.put(SeatClass.HARDBED.getCode(), t -> t.setHardBed(t.getHardBed() + 1));
        SEAT_COUNTERS.put(SeatClass.SOFTBED.getCode(), t -> t.setSoftBed(t.getSoftBed() + 1));
        SEAT_COUNTERS.put(SeatClass.HIGHSOFTBED.getCode(), t -> t.setHighSoftBed(t.getHighSoftBed() + 1));
    }

    @Autowired
    private OrderOtherRepository orderRepository;

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response getSoldTickets(Seat seatRequest, HttpHeaders headers) {
        List<Order> orders = orderRepository.findByTravelDateAndTrainNumber(
                seatRequest.getTravelDate(), seatRequest.getTrainNumber());
        if (orders == null || orders.isEmpty()) {
            return new Response<>(0, "Order is Null.", null);
        }
        Set<Ticket> sold = new HashSet<>();
        for (Order o : orders) {
            int seatNo = Integer.parseInt(o.getSeatNumber());
            sold.add(new Ticket(seatNo, o.getFrom(), o.getTo()));
        }
        LeftTicketInfo info = new LeftTicketInfo();
        info.setSoldTickets(sold);
        LOGGER.info("[getSoldTickets] train {}: {} seats sold", seatRequest.getTrainNumber(), sold.size());
        return new Response<>(1, SUCCESS, info);
    }

    @Override
    public Response findOrderById(UUID id, HttpHeaders headers) {
        Optional<Order> found = orderRepository.findById(id);
        if (found.isPresent()) {
            return new Response<>(1, SUCCESS, found.get());
        }
        return new Response<>(0, "No Content by this id", null);
    }

    @Override
    public Response create(Order order, HttpHeaders headers) {
        List<Order> existing = orderRepository.findByAccountId(order.getAccountId());
        if (existing != null && existing.contains(order)) {
            LOGGER.warn("[create] duplicate order {} for account {}", order.getId(), order.getAccountId());
            return new Response<>(0, "Order already exist", null);
        }
        order.setId(UUID.randomUUID());
        orderRepository.save(order);
        LOGGER.info("[create] stored order {}", order.getId());
        return new Response<>(1, SUCCESS, order);
    }

    @Override
    public Response queryOrders(OrderInfo qi, String accountId, HttpHeaders headers) {
        List<Order> all = orderRepository.findByAccountId(UUID.fromString(accountId));
        LOGGER.info("[queryOrders] Get the orders of the account, size: {}", all.size());
        boolean filtered = qi.isEnableStateQuery() || qi.isEnableTravelDateQuery() || qi.isEnableBoughtDateQuery();
        if (!filtered) {
            return new Response<>(1, "Get order num", all);
        }
        List<Order> matching = new ArrayList<>();
        for (Order o : all) {
            boolean keep = !qi.isEnableStateQuery() || o.getStatus() == qi.getState();
            if (keep && qi.isEnableTravelDateQuery()) {
                Date travel = o.getTravelDate();
                keep = travel.after(qi.getBoughtDateStart()) && travel.before(qi.getTravelDateEnd());
            }
            if (keep && qi.isEnableBoughtDateQuery()) {
                Date bought = o.getBoughtDate();
                keep = bought.after(qi.getBoughtDateStart()) && bought.before(qi.getBoughtDateEnd());
            }
            if (keep) {
                matching.add(o);
            }
        }
        LOGGER.info("[queryOrders] Get order num: {}", matching.size());
        return new Response<>(1, "Get order num", matching);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Response queryOrdersForRefresh(OrderInfo qi, String accountId, HttpHeaders headers) {
        List<Order> orders = (List<Order>) queryOrders(qi, accountId, headers).getData();
        List<String> stationIds = new ArrayList<>(orders.size() * 2);
        for (Order o : orders) {
            stationIds.add(o.getFrom());
            stationIds.add(o.getTo());
        }
        List<String> names = queryForStationId(stationIds, headers);
        Iterator<String> name = names.iterator();
        for (Order o : orders) {
            o.setFrom(name.next());
            o.setTo(name.next());
        }
        return new Response<>(1, "Query Orders For Refresh Success", orders);
    }

    public List<String> queryForStationId(List<String> ids, HttpHeaders headers) {
        HttpEntity<List<String>> body = new HttpEntity<>(ids, null);
        ResponseEntity<Response<List<String>>> reply = restTemplate.exchange(STATION_NAMES_URL, HttpMethod.POST, body,
                new ParameterizedTypeReference<Response<List<String>>>() { });
        Response<List<String>> payload = reply.getBody();
        return payload == null ? Collections.emptyList() : payload.getData();
    }

    @Override
    public Response modifyOrder(String orderId, int status, HttpHeaders headers) {
        Optional<Order> found = orderRepository.findById(UUID.fromString(orderId));
        if (!found.isPresent()) {
            return new Response<>(0, "Order Not Found", null);
        }
        Order order = found.get();
        order.setStatus(status);
        orderRepository.save(order);
        return new Response<>(1, "Modify Order Success", order);
    }

    @Override
    public Response calculateSoldTicket(Date travelDate, String trainNumber, HttpHeaders headers) {
        SoldTicket sold = new SoldTicket();
        sold.setTravelDate(travelDate);
        sold.setTrainNumber(trainNumber);
        for (Order o : orderRepository.findByTravelDateAndTrainNumber(travelDate, trainNumber)) {
            // changed or cancelled orders no longer hold their seat
            if (o.getStatus() >= OrderStatus.CHANGE.getCode()) {
                continue;
            }
            Consumer<SoldTicket> counter = SEAT_COUNTERS.get(o.getSeatClass());
            if (counter != null) {
                counter.accept(sold);
            }
        }
        return new Response<>(1, SUCCESS, sold);
    }
}

package travel.service;

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
import travel.entity.Route;
import travel.entity.Seat;
import travel.entity.SeatClass;
import travel.entity.SoldTicket;
import travel.entity.TrainType;
import travel.entity.Travel;
import travel.entity.TravelResult;
import travel.entity.Trip;
import travel.entity.TripId;
import travel.entity.TripInfo;
import travel.entity.TripResponse;
import travel.repository.TripRepository;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Trip search of this travel service: a trip matches when its route passes the requested
 * boarding station before the requested destination. Each match is priced by ts-ticketinfo-service,
 * its free seats come from ts-seat-service and its sold tickets from the order service.
 */
@Service
public class TravelServiceImpl implements TravelService {

    private static final Logger LOGGER = LoggerFactory.getLogger(TravelServiceImpl.class);

    private static final String SUCCESS = "Success";
    private static final String TICKETINFO_URL = "http://ts-ticketinfo-service:15681/api/v1/ticketinfoservice/ticketinfo";
    private static final String SOLD_TICKETS_URL = "http://ts-order-service:12031/api/v1/orderservice/order/";
    private static final String TRAIN_URL = "http://ts-train-service:14567/api/v1/trainservice/trains/";
    private static final String ROUTE_URL = "http://ts-route-service:11178/api/v1/routeservice/routes/";
    private static final String LEFT_TICKETS_URL = "http://ts-seat-service:18898/api/v1/seatservice/seats/left_tickets";

    private static final int FIRST_CLASS_SEATS = 250;
    private static final int SECOND_CLASS_SEATS = 1000;
    private static final int WHOLE_ROUTE_SEATS = 50;

    @Autowired
    private TripRepository repository;

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response query(TripInfo info, HttpHeaders headers) {
        String from = info.getStartingPlace();
        String to = info.getEndPlace();
        Date date = info.getDepartureTime();
        // routes list their stations by id, requests name them
        String fromId = queryForStationId(from, headers);
        String toId = queryForStationId(to, headers);

        List<TripResponse> list = new ArrayList<>();
        for (Trip trip : repository.findAll()) {
            Route route = getRouteByRouteId(trip.getRouteId(), headers);
            if (route == null || !passesInOrder(route.getStations(), fromId, toId)) {
                continue;
            }
            TripResponse response = getTickets(trip, route, fromId, toId, from, to, date, headers);
            if (response == null) {
                LOGGER.warn("[query] Query trip error.Tickets not found, start: {}, end: {}, time: {}", from, to, date);
                return new Response<>(0, "No Trip info content", null);
            }
            list.add(response);
        }
        return new Response<>(1, SUCCESS, list);
    }

    private static boolean passesInOrder(List<String> stations, String fromId, String toId) {
        int board = stations.indexOf(fromId);
        int alight = stations.indexOf(toId);
        return board >= 0 && alight > board;
    }

    private TripResponse getTickets(Trip trip, Route route, String startingPlaceId, String endPlaceId,
                                    String startingPlaceName, String endPlaceName, Date departureTime,
                                    HttpHeaders headers) {
        if (!afterToday(departureTime)) {
            return null;
        }
        String tripId = trip.getTripId().toString();

        Travel query = new Travel();
        query.setTrip(trip);
        query.setStartingPlace(startingPlaceName);
        query.setEndPlace(endPlaceName);
        query.setDepartureTime(departureTime);
        TravelResult priced = dataOf(restTemplate.exchange(
                TICKETINFO_URL,
                HttpMethod.POST,
                new HttpEntity<>(query, null),
                new ParameterizedTypeReference<Response<TravelResult>>() { }));

        Response<SoldTicket> sold = restTemplate.exchange(
                SOLD_TICKETS_URL + departureTime + "/" + tripId,
                HttpMethod.GET,
                HttpEntity.EMPTY,
                new ParameterizedTypeReference<Response<SoldTicket>>() { }).getBody();
        LOGGER.info("[getTickets] Order info is: {}", sold);

        TripResponse response = new TripResponse();
        response.setTripId(new TripId(sold.getData().getTrainNumber()));
        response.setTrainTypeId(trip.getTrainTypeId());
        response.setStartingStation(startingPlaceName);
        response.setTerminalStation(endPlaceName);
        response.setPriceForConfortClass(priced.getPrices().get("confortClass"));
        response.setPriceForEconomyClass(priced.getPrices().get("economyClass"));

        boolean wholeRoute = startingPlaceId.equals(trip.getStartingStationId())
                && endPlaceId.equals(trip.getTerminalStationId());
        if (wholeRoute) {
            response.setConfortClass(WHOLE_ROUTE_SEATS);
            response.setEconomyClass(WHOLE_ROUTE_SEATS);
        } else {
            List<String> stations = route.getStations();
            response.setConfortClass(getRestTicketNumber(departureTime, tripId, startingPlaceName, endPlaceName,
                    SeatClass.FIRSTCLASS.getCode(), stations, headers));
            response.setEconomyClass(getRestTicketNumber(departureTime, tripId, startingPlaceName, endPlaceName,
                    SeatClass.SECONDCLASS.getCode(), stations, headers));
        }

        // times along the route: distance from the first station over the train type's average speed (km/h)
        List<Integer> distances = route.getDistances();
        int origin = distances.get(0);
        int distanceStart = distances.get(route.getStations().indexOf(startingPlaceId)) - origin;
        int distanceEnd = distances.get(route.getStations().indexOf(endPlaceId)) - origin;
        LOGGER.info("[getTickets] Calculate distance start: {}, end: {}", distanceStart, distanceEnd);
        TrainType trainType = getTrainType(trip.getTrainTypeId(), headers);
        int speed = trainType.getAverageSpeed();
        int minutesStart = 60 * distanceStart / speed;
        int minutesEnd = 60 * distanceEnd / speed;
        response.setStartingTime(plusMinutes(trip.getStartingTime(), minutesStart));
        response.setEndTime(plusMinutes(trip.getStartingTime(), minutesEnd));
        return response;
    }

    private static Date plusMinutes(Date start, int minutes) {
        return new Date(start.getTime() + TimeUnit.MINUTES.toMillis(minutes));
    }

    /** True when the date is today or later (local calendar days). */
    private static boolean afterToday(Date date) {
        LocalDate day = Instant.ofEpochMilli(date.getTime()).atZone(ZoneId.systemDefault()).toLocalDate();
        return !day.isBefore(LocalDate.now());
    }

    private TrainType getTrainType(String trainTypeId, HttpHeaders headers) {
        return dataOf(restTemplate.exchange(
                TRAIN_URL + trainTypeId,
                HttpMethod.GET,
                HttpEntity.EMPTY,
                new ParameterizedTypeReference<Response<TrainType>>() { }));
    }

    private String queryForStationId(String stationName, HttpHeaders headers) {
        return dataOf(restTemplate.exchange(
                TICKETINFO_URL + "/" + stationName,
                HttpMethod.GET,
                HttpEntity.EMPTY,
                new ParameterizedTypeReference<Response<String>>() { }));
    }

    private Route getRouteByRouteId(String routeId, HttpHeaders headers) {
        Response<Route> reply = restTemplate.exchange(
                ROUTE_URL + routeId,
                HttpMethod.GET,
                HttpEntity.EMPTY,
                new ParameterizedTypeReference<Response<Route>>() { }).getBody();
        if (reply == null || reply.getStatus() != 1) {
            LOGGER.error("[getRouteByRouteId] Get Route By Id Fail, RouteId: {}", routeId);
            return null;
        }
        return reply.getData();
    }

    private int getRestTicketNumber(Date travelDate, String trainNumber, String startStationName,
                                    String endStationName, int seatType, List<String> stations,
                                    HttpHeaders headers) {
        Seat seat = new Seat();
        seat.setTravelDate(travelDate);
        seat.setTrainNumber(trainNumber);
        seat.setStartStation(queryForStationId(startStationName, headers));
        seat.setDestStation(queryForStationId(endStationName, headers));
        seat.setSeatType(seatType);
        seat.setStations(stations);
        seat.setTotalNum(seatType == SeatClass.FIRSTCLASS.getCode() ? FIRST_CLASS_SEATS : SECOND_CLASS_SEATS);
        Integer left = dataOf(restTemplate.exchange(
                LEFT_TICKETS_URL,
                HttpMethod.POST,
                new HttpEntity<>(seat, null),
                new ParameterizedTypeReference<Response<Integer>>() { }));
        return left == null ? 0 : left;
    }

    private static <T> T dataOf(ResponseEntity<Response<T>> reply) {
        Response<T> body = reply.getBody();
        return body == null ? null : body.getData();
    }
}

package travelplan.service;

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
import travelplan.entity.RoutePlanInfo;
import travelplan.entity.RoutePlanResultUnit;
import travelplan.entity.Seat;
import travelplan.entity.SeatClass;
import travelplan.entity.TravelAdvanceResultUnit;
import travelplan.entity.TripInfo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;

/**
 * Builds travel plans: asks ts-route-plan-service for candidate trips, then completes each one
 * with the names of its stops and the number of seats still free in both classes.
 */
@Service
public class TravelPlanServiceImpl implements TravelPlanService {

    private static final Logger LOGGER = LoggerFactory.getLogger(TravelPlanServiceImpl.class);

    private static final int PLAN_COUNT = 5;
    private static final String CHEAPEST_ROUTE_URL =
            "http://ts-route-plan-service:14578/api/v1/routeplanservice/routePlan/cheapestRoute";
    private static final String LEFT_TICKETS_URL = "http://ts-seat-service:18898/api/v1/seatservice/seats/left_tickets";
    private static final String STATION_ID_URL = "http://ts-ticketinfo-service:15681/api/v1/ticketinfoservice/ticketinfo/";
    private static final String STATION_NAMES_URL = "http://ts-station-service:12345/api/v1/stationservice/stations/namelist";

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response getCheapest(TripInfo info, HttpHeaders headers) {
        RoutePlanInfo query = new RoutePlanInfo();
        query.setNum(PLAN_COUNT);
        query.setFormStationName(info.getStartingPlace());
        query.setToStationName(info.getEndPlace());
        query.setTravelDate(info.getDepartureTime());

        List<RoutePlanResultUnit> plans = getRoutePlanResultCheapest(query, headers);
        if (plans == null || plans.isEmpty()) {
            LOGGER.warn("[getCheapest] Cannot get Route Plan Result Cheapest, start: {}", info.getStartingPlace());
            return new Response<>(0, "Cannot Find", null);
        }

        Date date = info.getDepartureTime();
        List<TravelAdvanceResultUnit> results = new ArrayList<>(plans.size());
        for (RoutePlanResultUnit plan : plans) {
            TravelAdvanceResultUnit unit = new TravelAdvanceResultUnit();
            unit.setTripId(plan.getTripId());
            unit.setTrainTypeId(plan.getTrainTypeId());
            unit.setFromStationName(plan.getFromStationName());
            unit.setToStationName(plan.getToStationName());
            unit.setStopStations(transferStationIdToStationName(plan.getStopStations(), headers));
            unit.setPriceForFirstClassSeat(plan.getPriceForFirstClassSeat());
            unit.setPriceForSecondClassSeat(plan.getPriceForSecondClassSeat());
            unit.setStartingTime(plan.getStartingTime());
            unit.setEndTime(plan.getEndTime());
            unit.setNumberOfRestTicketFirstClass(getRestTicketNumber(date, plan.getTripId(),
                    plan.getFromStationName(), plan.getToStationName(), SeatClass.FIRSTCLASS.getCode(), headers));
            unit.setNumberOfRestTicketSecondClass(getRestTicketNumber(date, plan.getTripId(),
                    plan.getFromStationName(), plan.getToStationName(), SeatClass.SECONDCLASS.getCode(), headers));
            results.add(unit);
        }
        return new Response<>(1, "Success", results);
    }

    private int getRestTicketNumber(Date travelDate, String trainNumber, String startStationName,
                                    String endStationName, int seatType, HttpHeaders headers) {
        Seat seat = new Seat();
        seat.setTravelDate(travelDate);
        seat.setTrainNumber(trainNumber);
        seat.setStartStation(queryForStationId(startStationName, headers));
        seat.setDestStation(queryForStationId(endStationName, headers));
        seat.setSeatType(seatType);
        Integer left = dataOf(restTemplate.exchange(
                LEFT_TICKETS_URL,
                HttpMethod.POST,
                new HttpEntity<>(seat, headers),
                new ParameterizedTypeReference<Response<Integer>>() { }));
        return left == null ? 0 : left;
    }

    private List<RoutePlanResultUnit> getRoutePlanResultCheapest(RoutePlanInfo info, HttpHeaders headers) {
        return dataOf(restTemplate.exchange(
                CHEAPEST_ROUTE_URL,
                HttpMethod.POST,
                new HttpEntity<>(info, headers),
                new ParameterizedTypeReference<Response<List<RoutePlanResultUnit>>>() { }));
    }

    private String queryForStationId(String stationName, HttpHeaders headers) {
        return dataOf(restTemplate.exchange(
                STATION_ID_URL + stationName,
                HttpMethod.GET,
                new HttpEntity<>(headers),
                new ParameterizedTypeReference<Response<String>>() { }));
    }

    private List<String> transferStationIdToStationName(List<String> stationIds, HttpHeaders headers) {
        if (stationIds == null || stationIds.isEmpty()) {
            return Collections.emptyList();
        }
        List<String> names = dataOf(restTemplate.exchange(
                STATION_NAMES_URL,
                HttpMethod.POST,
                new HttpEntity<>(stationIds, headers),
                new ParameterizedTypeReference<Response<List<String>>>() { }));
        return names == null ? Collections.emptyList() : names;
    }

    private static <T> T dataOf(ResponseEntity<Response<T>> reply) {
        Response<T> body = reply.getBody();
        return body == null ? null : body.getData();
    }
}

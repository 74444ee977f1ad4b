package admintravel.service;

import admintravel.entity.AdminTrip;
import admintravel.entity.TravelInfo;
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

import java.util.ArrayList;
import java.util.List;

/**
 * Trip administration. High-speed trips (train types starting with G or D) belong to
 * ts-travel-service, all other trips to ts-travel2-service; the admin list shows both.
 */
@Service
public class AdminTravelServiceImpl implements AdminTravelService {

    private static final Logger LOGGER = LoggerFactory.getLogger(AdminTravelServiceImpl.class);

    private static final String TRAVEL_API = "http://ts-travel-service:12346/api/v1/travelservice";
    private static final String TRAVEL2_API = "http://ts-travel2-service:16346/api/v1/travel2service";

    private static final ParameterizedTypeReference<Response<ArrayList<AdminTrip>>> TRIP_LIST =
            new ParameterizedTypeReference<Response<ArrayList<AdminTrip>>>() { };

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response getAllTravels(HttpHeaders headers) {
        HttpEntity<Void> request = new HttpEntity<>(headers);
        ArrayList<AdminTrip> trips = new ArrayList<>();
        collectTrips(TRAVEL_API + "/admin_trip", "travel service", request, trips);
        collectTrips(TRAVEL2_API + "/admin_trip", "travel2 service", request, trips);
        return new Response<>(1, "Travel Service Admin Query All Travel Success", trips);
    }

    @Override
    public Response addTravel(TravelInfo request, HttpHeaders headers) {
        String api = isHighSpeed(request.getTrainTypeId()) ? TRAVEL_API : TRAVEL2_API;
        ResponseEntity<Response> reply = restTemplate.exchange(
                api + "/trips", HttpMethod.POST, new HttpEntity<>(request, headers), Response.class);
        Response created = reply.getBody();
        if (created != null && created.getStatus() != null && created.getStatus() == 1) {
            LOGGER.info("[addTravel] trip {} created", request.getTripId());
            return new Response<>(1, "[Admin add new travel]", null);
        }
        LOGGER.warn("[addTravel] trip {} rejected by {}", request.getTripId(), api);
        return new Response<>(0, "Admin add new travel failed", null);
    }

    /** Appends the trips listed at {@code url} to {@code into}; a failed listing adds nothing. */
    private void collectTrips(String url, String source, HttpEntity<Void> request, List<AdminTrip> into) {
        Response<ArrayList<AdminTrip>> listing =
                restTemplate.exchange(url, HttpMethod.GET, request, TRIP_LIST).getBody();
        if (listing == null) {
            LOGGER.warn("[getAllTravels] {} returned no body", source);
            return;
        }
        LOGGER.info("[getAllTravels] {} status: {}", source, listing.getStatus());
        if (listing.getStatus() != null && listing.getStatus() == 1 && listing.getData() != null) {
            into.addAll(listing.getData());
        }
    }

    private static boolean isHighSpeed(String trainTypeId) {
        return trainTypeId != null && !trainTypeId.isEmpty()
                && (trainTypeId.charAt(0) == 'G' || trainTypeId.charAt(0) == 'D');
    }
}

package adminbasic.service;

import adminbasic.entity.Station;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

/**
 * Back end of the admin console's "basic info" pages. Every operation is a thin proxy to the
 * service that owns the data; the caller's headers (and so its JWT) travel with each request.
 */
@Service
public class AdminBasicInfoServiceImpl implements AdminBasicInfoService {

    private static final Logger LOGGER = LoggerFactory.getLogger(AdminBasicInfoServiceImpl.class);

    static final String CONTACTS_URL = "http://ts-contacts-service:12347/api/v1/contactservice/contacts";
    static final String STATIONS_URL = "http://ts-station-service:12345/api/v1/stationservice/stations";
    static final String TRAINS_URL = "http://ts-train-service:14567/api/v1/trainservice/trains";
    static final String CONFIGS_URL = "http://ts-config-service:15679/api/v1/configservice/configs";
    static final String PRICES_URL = "http://ts-price-service:16579/api/v1/priceservice/prices";

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response getAllContacts(HttpHeaders headers) {
        return relay(CONTACTS_URL, HttpMethod.GET, null, headers);
    }

    @Override
    public Response getAllStations(HttpHeaders headers) {
        return relay(STATIONS_URL, HttpMethod.GET, null, headers);
    }

    @Override
    public Response addStation(Station s, HttpHeaders headers) {
        if (s == null || s.getName() == null || s.getName().isEmpty()) {
            return new Response<>(0, "Station name is required", null);
        }
        LOGGER.info("[addStation] creating station '{}'", s.getName());
        return relay(STATIONS_URL, HttpMethod.POST, s, headers);
    }

    @Override
    public Response getAllTrains(HttpHeaders headers) {
        return relay(TRAINS_URL, HttpMethod.GET, null, headers);
    }

    @Override
    public Response getAllConfigs(HttpHeaders headers) {
        return relay(CONFIGS_URL, HttpMethod.GET, null, headers);
    }

    @Override
    public Response getAllPrices(HttpHeaders headers) {
        Response prices = relay(PRICES_URL, HttpMethod.GET, null, headers);
        if (prices == null) {
            LOGGER.warn("[getAllPrices] price service returned an empty body");
            return new Response<>(0, "No price configs", null);
        }
        LOGGER.info("[getAllPrices] price service replied with status {}", prices.getStatus());
        return prices;
    }

    /** Sends one request to a downstream service and hands back its Response body unchanged. */
    private Response relay(String url, HttpMethod method, Object body, HttpHeaders headers) {
        HttpEntity<Object> entity = new HttpEntity<>(body, headers);
        ResponseEntity<Response> reply = restTemplate.exchange(url, method, entity, Response.class);
        return reply.getBody();
    }
}

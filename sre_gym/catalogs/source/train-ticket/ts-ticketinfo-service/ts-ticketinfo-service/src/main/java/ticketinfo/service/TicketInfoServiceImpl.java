package ticketinfo.service;

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
import ticketinfo.entity.Travel;

/**
 * Ticket information is computed by ts-basic-service; this service forwards the queries of the
 * travel services to it and hands back its answer unchanged.
 */
@Service
public class TicketInfoServiceImpl implements TicketInfoService {

    private static final Logger LOGGER = LoggerFactory.getLogger(TicketInfoServiceImpl.class);

    private static final String BASIC_URL = "http://ts-basic-service:15680/api/v1/basicservice/basic/";

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response queryForTravel(Travel info, HttpHeaders headers) {
        ResponseEntity<Response> reply = restTemplate.exchange(
                BASIC_URL + "travel",
                HttpMethod.POST,
                new HttpEntity<>(info, headers),
                Response.class);
        LOGGER.info("[queryForTravel] trip: {}", info.getTrip().getTripId());
        return bodyOf("queryForTravel", reply);
    }

    @Override
    public Response queryForStationId(String name, HttpHeaders headers) {
        ResponseEntity<Response> reply = restTemplate.exchange(
                BASIC_URL + name,
                HttpMethod.GET,
                new HttpEntity<>(headers),
                Response.class);
        return bodyOf("queryForStationId", reply);
    }

    private static Response bodyOf(String caller, ResponseEntity<Response> reply) {
        Response body = reply.getBody();
        if (body == null) {
            LOGGER.warn("[{}] ts-basic-service answered {} without a body", caller, reply.getStatusCode());
            return new Response<>(0, "No response from ts-basic-service", null);
        }
        return body;
    }
}

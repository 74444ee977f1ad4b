package consign.service;

import consign.entity.Consign;
import consign.entity.ConsignRecord;
import consign.repository.ConsignRepository;
import edu.fudan.common.util.Response;
import java.util.List;
import java.util.UUID;
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

/**
 * Stores luggage consignments attached to orders. The price of a consignment is not computed
 * here: it is quoted by ts-consign-price-service for the parcel's weight and region.
 */
@Service
public class ConsignServiceImpl implements ConsignService {

    private static final Logger log = LoggerFactory.getLogger(ConsignServiceImpl.class);

    private static final String PRICE_API = "http://ts-consign-price-service:16110/api/v1/consignpriceservice";

    private static final ParameterizedTypeReference<Response<Double>> PRICE_REPLY =
            new ParameterizedTypeReference<Response<Double>>() { };

    @Autowired
    private ConsignRepository repository;

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response insertConsignRecord(Consign consignRequest, HttpHeaders headers) {
        log.info("[insertConsignRecord] order {} weighs {} kg", consignRequest.getOrderId(), consignRequest.getWeight());
        ConsignRecord record = fromRequest(consignRequest);
        record.setId(UUID.randomUUID());

        double price = quotePrice(consignRequest.getWeight(), consignRequest.isWithin(), headers);
        record.setPrice(price);

        ConsignRecord saved = repository.save(record);
        return new Response<>(1, "You have consigned successfully! The price is " + saved.getPrice(), saved);
    }

    @Override
    public Response queryByAccountId(UUID accountId, HttpHeaders headers) {
        List<ConsignRecord> records = repository.findByAccountId(accountId);
        if (records == null || records.isEmpty()) {
            log.warn("[queryByAccountId] account {} has no consignments", accountId);
            return new Response<>(0, "No Content according to accountId", null);
        }
        return new Response<>(1, "Find consign by account id success", records);
    }

    @Override
    public Response queryByOrderId(UUID orderId, HttpHeaders headers) {
        ConsignRecord record = repository.findByOrderId(orderId);
        if (record == null) {
            log.warn("[queryByOrderId] order {} has no consignment", orderId);
            return new Response<>(0, "No Content according to order id", null);
        }
        return new Response<>(1, "Find consign by order id success", record);
    }

    private double quotePrice(double weight, boolean within, HttpHeaders headers) {
        String url = PRICE_API + "/consignprice/" + weight + "/" + within;
        ResponseEntity<Response<Double>> reply = restTemplate.exchange(
                url, HttpMethod.GET, new HttpEntity<>(null, headers), PRICE_REPLY);
        Response<Double> body = reply.getBody();
        if (body == null || body.getData() == null) {
            log.error("[quotePrice] empty quote from {}", url);
            return 0.0;
        }
        return body.getData();
    }

    private static ConsignRecord fromRequest(Consign request) {
        ConsignRecord record = new ConsignRecord();
        record.setOrderId(request.getOrderId());
        record.setAccountId(request.getAccountId());
        record.setConsignee(request.getConsignee());
        record.setPhone(request.getPhone());
        record.setFrom(request.getFrom());
        record.setTo(request.getTo());
        record.setHandleDate(request.getHandleDate());
        record.setTargetDate(request.getTargetDate());
        record.setWeight(request.getWeight());
        return record;
    }
}

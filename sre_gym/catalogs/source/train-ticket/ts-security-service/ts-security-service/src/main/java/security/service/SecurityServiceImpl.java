package security.service;

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
import security.entity.OrderSecurity;
import security.entity.SecurityConfig;
import security.repository.SecurityRepository;

import java.util.Date;
import java.util.UUID;

/**
 * Anti-scalping check run before a ticket is reserved: an account may not place more orders in
 * the last hour, or hold more unused orders, than the limits stored as security configs.
 */
@Service
public class SecurityServiceImpl implements SecurityService {

    private static final Logger LOGGER = LoggerFactory.getLogger(SecurityServiceImpl.class);

    private static final String MAX_ORDERS_IN_ONE_HOUR = "max_order_1_hour";
    private static final String MAX_UNUSED_ORDERS = "max_order_not_use";

    private static final ParameterizedTypeReference<Response<OrderSecurity>> ORDER_SECURITY =
            new ParameterizedTypeReference<Response<OrderSecurity>>() { };

    @Autowired
    private SecurityRepository securityRepository;

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response check(String accountId, HttpHeaders headers) {
        LOGGER.info("[check] Security check, accountId: {}", accountId);
        Date now = new Date();
        OrderSecurity highSpeed = getSecurityOrderInfoFromOrder(now, accountId, headers);
        OrderSecurity other = getSecurityOrderOtherInfoFromOrder(now, accountId, headers);
        int recentOrders = highSpeed.getOrderNumInLastOneHour() + other.getOrderNumInLastOneHour();
        int unusedOrders = highSpeed.getOrderNumOfValidOrder() + other.getOrderNumOfValidOrder();

        SecurityConfig hourLimit = securityRepository.findByName(MAX_ORDERS_IN_ONE_HOUR);
        SecurityConfig unusedLimit = securityRepository.findByName(MAX_UNUSED_ORDERS);
        LOGGER.info("[check] Max in 1 hour: {}, Max not used: {}", hourLimit.getValue(), unusedLimit.getValue());
        int maxRecent = Integer.parseInt(hourLimit.getValue().trim());
        int maxUnused = Integer.parseInt(unusedLimit.getValue().trim());

        if (recentOrders > maxRecent || unusedOrders > maxUnused) {
            LOGGER.warn("[check] Check Security Fail, AccountId: {}", accountId);
            return new Response<>(0, "Too much order in last one hour or too much valid order", accountId);
        }
        return new Response<>(1, "Success.r", accountId);
    }

    @Override
    public Response addNewSecurityConfig(SecurityConfig info, HttpHeaders headers) {
        if (securityRepository.findByName(info.getName()) != null) {
            return new Response<>(0, "Security Config Already Exist", null);
        }
        SecurityConfig created = new SecurityConfig();
        created.setId(UUID.randomUUID());
        created.setName(info.getName());
        created.setValue(info.getValue());
        created.setDescription(info.getDescription());
        securityRepository.save(created);
        return new Response<>(1, "Success", created);
    }

    private OrderSecurity getSecurityOrderInfoFromOrder(Date checkDate, String accountId, HttpHeaders headers) {
        String url = "http://ts-order-service:12031/api/v1/orderservice/order/security/" + checkDate + "/" + accountId;
        ResponseEntity<Response<OrderSecurity>> reply =
                restTemplate.exchange(url, HttpMethod.GET, new HttpEntity<>(headers), ORDER_SECURITY);
        return unwrap("getSecurityOrderInfoFromOrder", reply);
    }

    private OrderSecurity getSecurityOrderOtherInfoFromOrder(Date checkDate, String accountId, HttpHeaders headers) {
        String url = "http://ts-order-other-service:12032/api/v1/orderOtherService/orderOther/security/"
                + checkDate + "/" + accountId;
        ResponseEntity<Response<OrderSecurity>> reply =
                restTemplate.exchange(url, HttpMethod.GET, new HttpEntity<>(headers), ORDER_SECURITY);
        return unwrap("getSecurityOrderOtherInfoFromOrder", reply);
    }

    private static OrderSecurity unwrap(String caller, ResponseEntity<Response<OrderSecurity>> reply) {
        OrderSecurity stats = reply.getBody().getData();
        LOGGER.info("[{}] Last One Hour: {}, Total Valid Order: {}",
                caller, stats.getOrderNumInLastOneHour(), stats.getOrderNumOfValidOrder());
        return stats;
    }
}

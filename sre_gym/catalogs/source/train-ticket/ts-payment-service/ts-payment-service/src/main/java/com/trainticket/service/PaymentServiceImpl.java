package com.trainticket.service;

import com.trainticket.entity.Money;
import com.trainticket.entity.Payment;
import com.trainticket.repository.AddMoneyRepository;
import com.trainticket.repository.PaymentRepository;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;

import java.util.List;

/**
 * Records ticket payments (one per order) and account top-ups in ts-payment-mongo.
 */
@Service
public class PaymentServiceImpl implements PaymentService {

    private static final Logger LOGGER = LoggerFactory.getLogger(PaymentServiceImpl.class);

    @Autowired
    private PaymentRepository paymentRepository;

    @Autowired
    private AddMoneyRepository addMoneyRepository;

    @Override
    public Response pay(Payment info, HttpHeaders headers) {
        String orderId = info.getOrderId();
        if (paymentRepository.findByOrderId(orderId) != null) {
            LOGGER.warn("[pay] order {} has already been paid, rejecting payment {}", orderId, info.getId());
            return new Response<>(0, "Pay Failed, order not found with order id" + orderId, null);
        }
        Payment record = new Payment();
        record.setOrderId(orderId);
        record.setUserId(info.getUserId());
        record.setPrice(info.getPrice());
        paymentRepository.save(record);
        LOGGER.info("[pay] order {} paid by user {}", orderId, info.getUserId());
        return new Response<>(1, "Pay Success", null);
    }

    @Override
    public Response addMoney(Payment info, HttpHeaders headers) {
        Money topUp = new Money();
        topUp.setUserId(info.getUserId());
        topUp.setMoney(info.getPrice());
        addMoneyRepository.save(topUp);
        LOGGER.info("[addMoney] user {} topped up {}", info.getUserId(), info.getPrice());
        return new Response<>(1, "Add Money Success", topUp);
    }

    @Override
    public Response query(HttpHeaders headers) {
        List<Payment> payments = paymentRepository.findAll();
        if (payments == null || payments.isEmpty()) {
            LOGGER.warn("[query] no payment stored yet");
            return new Response<>(0, "No Content", null);
        }
        LOGGER.info("[query] {} payments", payments.size());
        return new Response<>(1, "Query Success", payments);
    }
}

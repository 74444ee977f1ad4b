package com.trainticket.service;

import com.trainticket.entity.Payment;
import com.trainticket.repository.AddMoneyRepository;
import com.trainticket.repository.PaymentRepository;
import edu.fudan.common.util.Response;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;

import java.util.Collections;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

public class PaymentServiceImplTest {

    @InjectMocks
    private PaymentServiceImpl service;

    @Mock
    private PaymentRepository paymentRepository;

    @Mock
    private AddMoneyRepository addMoneyRepository;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testPay() {
        Payment request = new Payment();
        request.setOrderId("order-1");
        request.setPrice("100.0");
        when(paymentRepository.findByOrderId(anyString())).thenReturn(null);
        assertEquals(new Response<>(1, "Pay Success", null), service.pay(request, headers));
        verify(paymentRepository, times(1)).save(any(Payment.class));
    }

    @Test
    public void testQueryNoContent() {
        when(paymentRepository.findAll()).thenReturn(Collections.emptyList());
        assertEquals(new Response<>(0, "No Content", null), service.query(headers));
    }
}

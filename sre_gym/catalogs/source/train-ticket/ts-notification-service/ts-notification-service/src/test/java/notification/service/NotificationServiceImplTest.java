package notification.service;

import notification.entity.Mail;
import notification.entity.NotifyInfo;
import org.junit.Before;
import org.junit.Test;
import org.mockito.ArgumentCaptor;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.verify;

public class NotificationServiceImplTest {

    @Mock
    private MailService mailService;

    @InjectMocks
    private NotificationServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    private static NotifyInfo info() {
        NotifyInfo info = new NotifyInfo();
        info.setEmail("traveller@example.com");
        info.setUsername("traveller");
        info.setPrice("120.0");
        return info;
    }

    @Test
    public void testPreserveSuccess() throws Exception {
        assertTrue(service.preserveSuccess(info(), headers));
        ArgumentCaptor<Mail> sent = ArgumentCaptor.forClass(Mail.class);
        verify(mailService).sendEmail(sent.capture(), eq("preserve_success.ftl"));
        assertEquals("traveller@example.com", sent.getValue().getMailTo());
    }

    @Test
    public void testOrderCancelSuccess() throws Exception {
        assertTrue(service.orderCancelSuccess(info(), headers));
        verify(mailService).sendEmail(any(Mail.class), eq("order_cancel_success.ftl"));
    }

    @Test
    public void testDeliveryFailureIsReported() throws Exception {
        doThrow(new RuntimeException("smtp down")).when(mailService).sendEmail(any(Mail.class), anyString());
        assertFalse(service.orderCreateSuccess(info(), headers));
    }
}

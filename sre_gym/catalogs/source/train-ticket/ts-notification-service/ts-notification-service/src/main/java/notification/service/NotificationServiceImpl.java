package notification.service;

import java.util.HashMap;
import java.util.Map;
import notification.entity.Mail;
import notification.entity.NotifyInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;

/**
 * Mails travellers about their bookings. Each notification fills a FreeMarker template
 * (under resources/templates) with fields of the {@link NotifyInfo} and hands it to the
 * {@link MailService}. A failed delivery is logged and reported as {@code false}; it never
 * fails the booking flow that triggered it.
 */
@Service
public class NotificationServiceImpl implements NotificationService {

    private static final Logger log = LoggerFactory.getLogger(NotificationServiceImpl.class);

    private static final String SENDER = "trainticket_notify@163.com";

    @Autowired
    private MailService mailService;

    @Override
    public boolean preserveSuccess(NotifyInfo info, HttpHeaders headers) {
        Map<String, Object> model = tripModel(info);
        model.put("price", info.getPrice());
        Mail mail = compose(info, "Preserve Success", model);
        return deliver("preserveSuccess", mail, "preserve_success.ftl");
    }

    @Override
    public boolean orderCreateSuccess(NotifyInfo info, HttpHeaders headers) {
        Map<String, Object> model = tripModel(info);
        model.put("orderNumber", info.getOrderNumber());
        Mail mail = compose(info, "Order Create Success", model);
        return deliver("orderCreateSuccess", mail, "order_create_success.ftl");
    }

    @Override
    public boolean orderCancelSuccess(NotifyInfo info, HttpHeaders headers) {
        Map<String, Object> model = new HashMap<>();
        model.put("username", info.getUsername());
        model.put("price", info.getPrice());
        Mail mail = compose(info, "Order Cancel Success", model);
        return deliver("orderCancelSuccess", mail, "order_cancel_success.ftl");
    }

    /** Template fields describing the journey itself, shared by the booking mails. */
    private static Map<String, Object> tripModel(NotifyInfo info) {
        Map<String, Object> model = new HashMap<>();
        model.put("username", info.getUsername());
        model.put("startingPlace", info.getStartingPlace());
        model.put("endPlace", info.getEndPlace());
        model.put("startingTime", info.getStartingTime());
        model.put("date", info.getDate());
        model.put("seatClass", info.getSeatClass());
        model.put("seatNumber", info.getSeatNumber());
        return model;
    }

    private static Mail compose(NotifyInfo info, String subject, Map<String, Object> model) {
        Mail mail = new Mail();
        mail.setMailFrom(SENDER);
        mail.setMailTo(info.getEmail());
        mail.setMailSubject(subject);
        mail.setModel(model);
        return mail;
    }

    private boolean deliver(String caller, Mail mail, String template) {
        try {
            mailService.sendEmail(mail, template);
            log.debug("[{}] mail sent to {}", caller, mail.getMailTo());
            return true;
        } catch (Exception e) {
            log.error("[{}] send email failed: {}", caller, e.getMessage());
            return false;
        }
    }
}

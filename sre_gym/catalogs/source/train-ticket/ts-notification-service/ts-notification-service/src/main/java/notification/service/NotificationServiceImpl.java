/*
 * Licensed to the Apache Software Foundation (ASF) under one or more
 * contributor license agreements.  See the NOTICE file distributed with
 * this work for additional information regarding copyright ownership.
 * The ASF licenses this file to You under the Apache License, Version 2.0
 * (the "License"); you may not use this file except in compliance with
 * the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package notification.service;

import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;
import notification.entity.*;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import notification.mq.RabbitSend;

/**
 * @author fdse
 */
@Service
public class NotificationServiceImpl implements NotificationService {

    @Autowired
    private MailService mailService;

    @Autowired
    private RabbitSend sender;

    String email = "trainticket_notify@163.com";
    String username = "username";
    String startingPlace = "startingPlace";
    String endPlace = "endPlace";
    String startingTime = "startingTime";
    String date = "date";
    String seatClass = "seatClass";
    String seatNumber = "seatNumber";
    String price = "price";

    private static final Logger LOGGER = LoggerFactory.getLogger(NotificationServiceImpl.class);

    @Override
    public boolean preserveSuccess(NotifyInfo info, HttpHeaders headers) {
        Mail mail = new Mail();
        mail.setMailFrom(email);
        mail.setMailTo(info.getEmail());
        mail.setMailSubject("Preserve Success");

        Map<String, Object> model = new HashMap<>();
        model.put(username, info.getUsername());
        model.put(startingPlace, info.getStartingPlace());
        model.put(endPlace, info.getEndPlace());
        model.put(startingTime, info.getStartingTime());
        model.put(date, info.getDate());
        model.put(seatClass, info.getSeatClass());
        model.put(seatNumber, info.getSeatNumber());
        model.put(price, info.getPrice());
        mail.setModel(model);

        try {
            mailService.sendEmail(mail, "preserve_success.ftl");
            return true;
        } catch (Exception e) {
            NotificationServiceImpl.LOGGER.error("[preserveSuccess] send email failed: {}", e.getMessage());
            return false;
        }
    }

    @Override
    public boolean orderCreateSuccess(NotifyInfo info, HttpHeaders headers) {
        Mail mail = new Mail();
        mail.setMailFrom(email);
        mail.setMailTo(info.getEmail());
        mail.setMailSubject("Order Create Success");

        Map<String, Object> model = new HashMap<>();
        model.put(username, info.getUsername());
        model.put(startingPlace, info.getStartingPlace());
        model.put(endPlace, info.getEndPlace());
        model.put(startingTime, info.getStartingTime());
        model.put(date, info.getDate());
        model.put(seatClass, info.getSeatClass());
        model.put(seatNumber, info.getSeatNumber());
        model.put("orderNumber", info.getOrderNumber());
        mail.setModel(model);

        try {
            mailService.sendEmail(mail, "order_create_success.ftl");
            return true;
        } catch (Exception e) {
            NotificationServiceImpl.LOGGER.error("[orderCreateSuccess] send email failed: {}", e.getMessage());
            return false;
        }
    }

    @Override
    public boolean orderCancelSuccess(NotifyInfo info, HttpHeaders headers) {
        Mail mail = new Mail();
        mail.setMailFrom(email);
        mail.setMailTo(info.getEmail());
        mail.setMailSubject("Order Cancel Success");

        Map<String, Object> model = new HashMap<>();
        model.put(username, info.getUsername());
        model.put("price", info.getPrice());
        mail.setModel(model);

        try {
            mailService.sendEmail(mail, "order_cancel_success.ftl");
            return true;
        } catch (Exception e) {
            NotificationServiceImpl.LOGGER.error("[orderCancelSuccess] send email failed: {}", e.getMessage());
            return false;
        }
    }
}

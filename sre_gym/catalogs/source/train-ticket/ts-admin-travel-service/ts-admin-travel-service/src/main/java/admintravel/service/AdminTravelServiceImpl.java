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

package admintravel.service;

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
import admintravel.entity.*;
import java.util.ArrayList;

/**
 * @author fdse
 */
@Service
public class AdminTravelServiceImpl implements AdminTravelService {

    @Autowired
    private RestTemplate restTemplate;

    private static final Logger LOGGER = LoggerFactory.getLogger(AdminTravelServiceImpl.class);

    @Override
    public Response getAllTravels(HttpHeaders headers) {
        ArrayList<AdminTrip> trips = new ArrayList<>();

        HttpEntity requestEntity = new HttpEntity(headers);
        ResponseEntity<Response<ArrayList<AdminTrip>>> re = restTemplate.exchange(
                "http://ts-travel-service:12346/api/v1/travelservice/admin_trip",
                HttpMethod.GET,
                requestEntity,
                new ParameterizedTypeReference<Response<ArrayList<AdminTrip>>>() {
                });
        Response<ArrayList<AdminTrip>> result = re.getBody();
        AdminTravelServiceImpl.LOGGER.info("[getAllTravels] travel service status: {}", result.getStatus());
        if (result.getStatus() == 1) {
            trips.addAll(result.getData());
        }

        re = restTemplate.exchange(
                "http://ts-travel2-service:16346/api/v1/travel2service/admin_trip",
                HttpMethod.GET,
                requestEntity,
                new ParameterizedTypeReference<Response<ArrayList<AdminTrip>>>() {
                });
        result = re.getBody();
        AdminTravelServiceImpl.LOGGER.info("[getAllTravels] travel2 service status: {}", result.getStatus());
        if (result.getStatus() == 1) {
            trips.addAll(result.getData());
        }
        return new Response<>(1, "Travel Service Admin Query All Travel Success", trips);
    }

    @Override
    public Response addTravel(TravelInfo request, HttpHeaders headers) {
        String requestUrl;
        if (request.getTrainTypeId().charAt(0) == 'G' || request.getTrainTypeId().charAt(0) == 'D') {
            requestUrl = "http://ts-travel-service:12346/api/v1/travelservice/trips";
        } else {
            requestUrl = "http://ts-travel2-service:16346/api/v1/travel2service/trips";
        }
        HttpEntity requestEntity = new HttpEntity(request, headers);
        ResponseEntity<Response> re = restTemplate.exchange(requestUrl, HttpMethod.POST, requestEntity, Response.class);
        Response result = re.getBody();
        if (result.getStatus() == 1) {
            return new Response<>(1, "[Admin add new travel]", null);
        } else {
            return new Response<>(0, "Admin add new travel failed", null);
        }
    }
}

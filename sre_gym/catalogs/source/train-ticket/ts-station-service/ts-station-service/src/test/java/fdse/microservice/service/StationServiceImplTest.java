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

package fdse.microservice.service;

import edu.fudan.common.util.Response;
import org.junit.Assert;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.Mockito;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;
import fdse.microservice.entity.*;
import fdse.microservice.repository.StationRepository;

@RunWith(JUnit4.class)
public class StationServiceImplTest {

    @InjectMocks
    private StationServiceImpl service;

    @Mock
    private StationRepository repository;

    private HttpHeaders headers = new HttpHeaders();

    @Before
    public void setUp() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testQueryForIdMissing() {
        Mockito.when(repository.findByName(Mockito.anyString())).thenReturn(null);
        Assert.assertEquals(new Response<>(0, "Not exists", "nowhere"), service.queryForId("nowhere", headers));
    }

    @Test
    public void testQueryById() {
        Station station = new Station("shanghai", "Shanghai");
        Mockito.when(repository.findById("shanghai")).thenReturn(java.util.Optional.of(station));
        Assert.assertEquals(new Response<>(1, "Success", "Shanghai"), service.queryById("shanghai", headers));
    }
}

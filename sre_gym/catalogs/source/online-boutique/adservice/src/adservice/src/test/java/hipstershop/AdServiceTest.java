/*
 * Copyright 2018, Google LLC.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *   http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package hipstershop;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import hipstershop.Demo.AdRequest;
import hipstershop.Demo.AdResponse;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import org.junit.Test;

public class AdServiceTest {

  @Test
  public void getAds_kitchenCategory_returnsKitchenAds() throws Exception {
    String name = InProcessServerBuilder.generateName();
    InProcessServerBuilder.forName(name).addService(new AdService.AdServiceImpl()).build().start();
    AdServiceGrpc.AdServiceBlockingStub stub =
        AdServiceGrpc.newBlockingStub(InProcessChannelBuilder.forName(name).build());
    AdResponse resp = stub.getAds(AdRequest.newBuilder().addContextKeys("kitchen").build());
    assertEquals(2, resp.getAdsCount());
  }

  @Test
  public void getAds_noContext_returnsRandomAds() throws Exception {
    String name = InProcessServerBuilder.generateName();
    InProcessServerBuilder.forName(name).addService(new AdService.AdServiceImpl()).build().start();
    AdServiceGrpc.AdServiceBlockingStub stub =
        AdServiceGrpc.newBlockingStub(InProcessChannelBuilder.forName(name).build());
    AdResponse resp = stub.getAds(AdRequest.getDefaultInstance());
    assertFalse(resp.getAdsList().isEmpty());
  }
}

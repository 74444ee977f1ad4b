/*
 * Copyright The OpenTelemetry Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package oteldemo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import oteldemo.Demo.AdRequest;
import oteldemo.Demo.AdResponse;
import org.junit.jupiter.api.Test;

class AdServiceTest {

  private AdServiceGrpc.AdServiceBlockingStub stub() throws Exception {
    String name = InProcessServerBuilder.generateName();
    InProcessServerBuilder.forName(name).addService(new AdService.AdServiceImpl()).build().start();
    return AdServiceGrpc.newBlockingStub(InProcessChannelBuilder.forName(name).build());
  }

  @Test
  void accessoriesHaveThreeAds() throws Exception {
    AdResponse resp = stub().getAds(AdRequest.newBuilder().addContextKeys("accessories").build());
    assertEquals(3, resp.getAdsCount());
  }

  @Test
  void booksFallBackToRandomAds() throws Exception {
    AdResponse resp = stub().getAds(AdRequest.newBuilder().addContextKeys("books").build());
    assertEquals(2, resp.getAdsCount());
  }
}

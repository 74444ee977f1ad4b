package oteldemo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import oteldemo.Demo.AdRequest;
import oteldemo.Demo.AdResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdServiceTest {

  private Server server;
  private ManagedChannel channel;
  private AdServiceGrpc.AdServiceBlockingStub ads;

  @BeforeEach
  void startInProcessServer() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(new AdService.AdServiceImpl())
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    ads = AdServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  private AdResponse request(String... keys) {
    AdRequest.Builder req = AdRequest.newBuilder();
    for (String key : keys) {
      req.addContextKeys(key);
    }
    return ads.getAds(req.build());
  }

  @Test
  void accessoriesHaveThreeAds() {
    assertEquals(3, request("accessories").getAdsCount());
  }

  @Test
  void booksFallBackToRandomAds() {
    AdResponse resp = request("books");
    assertEquals(2, resp.getAdsCount());
    resp.getAdsList().forEach(ad -> assertTrue(ad.getRedirectUrl().startsWith("/product/")));
  }
}

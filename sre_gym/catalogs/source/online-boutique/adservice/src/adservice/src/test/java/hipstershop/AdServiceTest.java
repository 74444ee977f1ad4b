package hipstershop;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import hipstershop.Demo.Ad;
import hipstershop.Demo.AdRequest;
import hipstershop.Demo.AdResponse;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

public class AdServiceTest {

  private Server server;
  private ManagedChannel channel;
  private AdServiceGrpc.AdServiceBlockingStub ads;

  @Before
  public void startInProcessServer() throws Exception {
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

  @After
  public void shutDown() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  @Test
  public void kitchenContext_returnsBothKitchenAds() {
    AdResponse resp = ads.getAds(AdRequest.newBuilder().addContextKeys("kitchen").build());
    assertEquals(2, resp.getAdsCount());
    for (Ad ad : resp.getAdsList()) {
      assertTrue(ad.getRedirectUrl().startsWith("/product/"));
    }
  }

  @Test
  public void emptyContext_fallsBackToRandomAds() {
    AdResponse resp = ads.getAds(AdRequest.getDefaultInstance());
    assertEquals(2, resp.getAdsCount());
  }

  @Test
  public void unknownContext_fallsBackToRandomAds() {
    AdResponse resp = ads.getAds(AdRequest.newBuilder().addContextKeys("gardening").build());
    assertEquals(2, resp.getAdsCount());
  }
}

package hipstershop;

import com.google.common.collect.ImmutableListMultimap;
import com.google.common.collect.Iterables;
import hipstershop.Demo.Ad;
import hipstershop.Demo.AdRequest;
import hipstershop.Demo.AdResponse;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Text ads for the storefront. The frontend sends the categories of the page it renders as
 * context keys; ads are looked up per category, with a random pick when nothing matches.
 */
public final class AdService {

  private static final Logger logger = LogManager.getLogger(AdService.class);

  private static final int DEFAULT_PORT = 9555;

  /** How many ads a context-free request gets. */
  @SuppressWarnings("FieldCanBeLocal")
  private static int MAX_ADS_TO_SERVE = 2;

  private static final AdService INSTANCE = new AdService();

  private static final Random random = new Random();

  private static final ImmutableListMultimap<String, Ad> adsMap = createAdsMap();

  private Server server;
  private HealthStatusManager health;

  private AdService() {}

  private static AdService getInstance() {
    return INSTANCE;
  }

  private static int listenPort() {
    String configured = System.getenv("PORT");
    if (configured == null || configured.isBlank()) {
      return DEFAULT_PORT;
    }
    return Integer.parseInt(configured.trim());
  }

  private void start() throws IOException {
    int port = listenPort();
    health = new HealthStatusManager();
    server =
        ServerBuilder.forPort(port)
            .addService(new AdServiceImpl())
            .addService(health.getHealthService())
            .build();
    server.start();
    health.setStatus("", ServingStatus.SERVING);
    logger.info("Ad Service listening on port {}", port);
    Runtime.getRuntime().addShutdownHook(new Thread(this::onJvmShutdown, "adservice-shutdown"));
  }

  private void onJvmShutdown() {
    // log4j registers its own shutdown hook and may be gone already: write to stderr directly.
    System.err.println("adservice: JVM is exiting, stopping the gRPC server");
    stop();
    System.err.println("adservice: gRPC server stopped");
  }

  private void stop() {
    if (server == null) {
      return;
    }
    health.clearStatus("");
    server.shutdown();
  }

  /** gRPC threads are daemons, so main has to wait for the server explicitly. */
  private void blockUntilShutdown() throws InterruptedException {
    if (server != null) {
      server.awaitTermination();
    }
  }

  static class AdServiceImpl extends hipstershop.AdServiceGrpc.AdServiceImplBase {

    /** Answers one GetAds call: the ads of every context key, or random ads if none match. */
    @Override
    public void getAds(AdRequest req, StreamObserver<AdResponse> responseObserver) {
      AdService service = AdService.getInstance();
      logger.info("received ad request (context_words=" + req.getContextKeysList() + ")");
      try {
        List<Ad> selected = new ArrayList<>();
        for (String key : req.getContextKeysList()) {
          selected.addAll(service.getAdsByCategory(key));
        }
        if (selected.isEmpty()) {
          // no context, or no ad for any of its keys
          selected = service.getRandomAds();
        }
        AdResponse reply = AdResponse.newBuilder().addAllAds(selected).build();
        responseObserver.onNext(reply);
        responseObserver.onCompleted();
      } catch (StatusRuntimeException e) {
        logger.log(Level.WARN, "GetAds failed: {}", e.getStatus());
        responseObserver.onError(e);
      }
    }
  }

  private Collection<Ad> getAdsByCategory(String category) {
    return adsMap.get(category);
  }

  private List<Ad> getRandomAds() {
    Collection<Ad> pool = adsMap.values();
    List<Ad> picks = new ArrayList<>(MAX_ADS_TO_SERVE);
    while (picks.size() < MAX_ADS_TO_SERVE) {
      picks.add(Iterables.get(pool, random.nextInt(pool.size())));
    }
    return picks;
  }

  private static Ad ad(String productId, String text) {
    return Ad.newBuilder().setRedirectUrl("/product/" + productId).setText(text).build();
  }

  private static ImmutableListMultimap<String, Ad> createAdsMap() {
    Ad hairdryer = ad("2ZYFJ3GM2N", "Hairdryer for sale. 50% off.");
    Ad tankTop = ad("66VCHSJNUP", "Tank top for sale. 20% off.");
    Ad candleHolder = ad("0PUK6V6EV0", "Candle holder for sale. 30% off.");
    Ad bambooGlassJar = ad("9SIQT8TOJO", "Bamboo glass jar for sale. 10% off.");
    Ad watch = ad("1YMWWN1N4O", "Watch for sale. Buy one, get second kit for free");
    Ad mug = ad("6E92ZMYYFZ", "Mug for sale. Buy two, get third one for free");
    Ad loafers = ad("L9ECAV7KIM", "Loafers for sale. Buy one, get second one for free");

    ImmutableListMultimap.Builder<String, Ad> byCategory = ImmutableListMultimap.builder();
    byCategory.put("clothing", tankTop);
    byCategory.put("accessories", watch);
    byCategory.put("footwear", loafers);
    byCategory.put("hair", hairdryer);
    byCategory.put("decor", candleHolder);
    byCategory.putAll("kitchen", bambooGlassJar, mug);
    return byCategory.build();
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    logger.info("AdService starting.");
    AdService service = getInstance();
    service.start();
    service.blockUntilShutdown();
  }
}

package oteldemo;

import com.google.common.collect.ImmutableListMultimap;
import com.google.common.collect.Iterables;
import dev.openfeature.contrib.providers.flagd.FlagdOptions;
import dev.openfeature.contrib.providers.flagd.FlagdProvider;
import dev.openfeature.sdk.Client;
import dev.openfeature.sdk.OpenFeatureAPI;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import oteldemo.Demo.Ad;
import oteldemo.Demo.AdRequest;
import oteldemo.Demo.AdResponse;

/** gRPC server of the ad service: contextual ads for the product pages. */
public final class AdService {

  private static final Logger logger = LogManager.getLogger(AdService.class);

  /** How many ads a response carries when nothing matches the request context. */
  private static final int MAX_ADS_TO_SERVE = 2;

  private static final AttributeKey<String> EXCEPTION_MESSAGE =
      AttributeKey.stringKey("exception.message");

  private static final AdService service = new AdService();

  private static final Random random = new Random();

  private static final ImmutableListMultimap<String, Ad> adsMap = createAdsMap();

  private Server server;
  private HealthStatusManager health;

  private static AdService getInstance() {
    return service;
  }

  private void start() throws IOException {
    String configured = System.getenv("AD_PORT");
    if (configured == null || configured.isBlank()) {
      throw new IllegalStateException("AD_PORT is not set");
    }
    int port = Integer.parseInt(configured.trim());

    FlagdOptions flagd = FlagdOptions.builder().withGlobalTelemetry(true).build();
    OpenFeatureAPI.getInstance().setProvider(new FlagdProvider(flagd));

    health = new HealthStatusManager();
    server =
        ServerBuilder.forPort(port)
            .addService(new AdServiceImpl())
            .addService(health.getHealthService())
            .build()
            .start();
    health.setStatus("", ServingStatus.SERVING);
    logger.info("ad service listening on port {}", port);

    Runtime.getRuntime().addShutdownHook(new Thread(AdService::stopQuietly));
  }

  private static void stopQuietly() {
    AdService self = getInstance();
    if (self.server == null) {
      return;
    }
    self.health.setStatus("", ServingStatus.NOT_SERVING);
    try {
      self.server.shutdown().awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void blockUntilShutdown() throws InterruptedException {
    if (server != null) {
      server.awaitTermination();
    }
  }

  static class AdServiceImpl extends AdServiceGrpc.AdServiceImplBase {

    private final Client flags = OpenFeatureAPI.getInstance().getClient();

    /** Answers an {@code AdRequest} with the ads of its context keys, or random ones. */
    @Override
    public void getAds(AdRequest req, StreamObserver<AdResponse> responseObserver) {
      AdService ads = AdService.getInstance();
      Span span = Span.current();
      span.setAttribute("app.ads.contextKeys", req.getContextKeysList().toString());
      span.setAttribute("app.ads.contextKeys.count", req.getContextKeysCount());
      try {
        if (flags.getBooleanValue("adFailure", false)) {
          throw Status.UNAVAILABLE.withDescription("ad failure flag is on").asRuntimeException();
        }

        List<Ad> allAds = new ArrayList<>();
        String adRequestType = req.getContextKeysCount() > 0 ? "targeted" : "not_targeted";
        for (String key : req.getContextKeysList()) {
          allAds.addAll(ads.getAdsByCategory(key));
        }
        if (allAds.isEmpty()) {
          // Serve random ads.
          allAds = ads.getRandomAds();
        }

        span.setAttribute("app.ads.count", allAds.size());
        span.setAttribute("app.ads.ad_request_type", adRequestType);
        responseObserver.onNext(AdResponse.newBuilder().addAllAds(allAds).build());
        responseObserver.onCompleted();
      } catch (StatusRuntimeException e) {
        span.addEvent("Error", Attributes.of(EXCEPTION_MESSAGE, String.valueOf(e.getMessage())));
        span.setStatus(StatusCode.ERROR);
        logger.warn("GetAds failed with status {}", e.getStatus());
        responseObserver.onError(e);
      }
    }
  }

  private Collection<Ad> getAdsByCategory(String category) {
    return adsMap.get(category);
  }

  private List<Ad> getRandomAds() {
    Collection<Ad> catalog = adsMap.values();
    List<Ad> picked = new ArrayList<>(MAX_ADS_TO_SERVE);
    while (picked.size() < MAX_ADS_TO_SERVE) {
      picked.add(Iterables.get(catalog, random.nextInt(catalog.size())));
    }
    return picked;
  }

  private static Ad ad(String redirectUrl, String text) {
    return Ad.newBuilder().setRedirectUrl(redirectUrl).setText(text).build();
  }

  private static ImmutableListMultimap<String, Ad> createAdsMap() {
    Ad binoculars = ad("/product/2ZYFJ3GM2N", "Roof Binoculars for sale. 50% off.");
    Ad explorerTelescope =
        ad("/product/66VCHSJNUP", "Starsense Explorer Refractor Telescope for sale. 20% off.");
    Ad colorImager = ad("/product/0PUK6V6EV0", "Solar System Color Imager for sale. 30% off.");
    Ad opticalTube = ad("/product/9SIQT8TOJO", "Optical Tube Assembly for sale. 10% off.");
    Ad travelTelescope =
        ad(
            "/product/1YMWWN1N4O",
            "Eclipsmart Travel Refractor Telescope for sale. Buy one, get second kit for free");
    Ad solarFilter =
        ad("/product/6E92ZMYYFZ", "Solar Filter for sale. Buy two, get third one for free");
    Ad cleaningKit =
        ad("/product/L9ECAV7KIM", "Lens Cleaning Kit for sale. Buy one, get second one for free");

    // "books" deliberately has no ads: requests for it exercise the random fallback.
    return ImmutableListMultimap.<String, Ad>builder()
        .putAll("binoculars", binoculars)
        .putAll("telescopes", explorerTelescope)
        .putAll("accessories", colorImager, solarFilter, cleaningKit)
        .putAll("assembly", opticalTube)
        .putAll("travel", travelTelescope)
        .build();
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    AdService app = getInstance();
    app.start();
    app.blockUntilShutdown();
  }
}

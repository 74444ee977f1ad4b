package price.service;

import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;
import price.entity.PriceConfig;
import price.repository.PriceConfigRepository;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Price rates per route and train type. The travel services multiply a route's distance
 * by these rates to price economy and first-class seats.
 */
@Service
public class PriceServiceImpl implements PriceService {

    private static final Logger LOGGER = LoggerFactory.getLogger(PriceServiceImpl.class);

    private static final String NO_SUCH_CONFIG = "No that config";

    @Autowired
    private PriceConfigRepository priceConfigRepository;

    @Override
    public Response createNewPriceConfig(PriceConfig createAndModifyPriceConfig, HttpHeaders headers) {
        UUID id = createAndModifyPriceConfig.getId();
        PriceConfig target;
        if (id == null) {
            target = new PriceConfig();
            target.setId(UUID.randomUUID());
        } else {
            // an unknown id is stored as given, so clients can choose their own ids
            target = priceConfigRepository.findById(id).orElseGet(PriceConfig::new);
            target.setId(id);
        }
        target.setRouteId(createAndModifyPriceConfig.getRouteId());
        target.setTrainType(createAndModifyPriceConfig.getTrainType());
        target.setBasicPriceRate(createAndModifyPriceConfig.getBasicPriceRate());
        target.setFirstClassPriceRate(createAndModifyPriceConfig.getFirstClassPriceRate());
        priceConfigRepository.save(target);
        LOGGER.info("[createNewPriceConfig] saved config {} for route {} ({})", target.getId(), target.getRouteId(),
                target.getTrainType());
        return new Response<>(1, "Create success", target);
    }

    @Override
    public Response findByRouteIdAndTrainType(String routeId, String trainType, HttpHeaders headers) {
        PriceConfig priceConfig = priceConfigRepository.findByRouteIdAndTrainType(routeId, trainType);
        if (priceConfig == null) {
            LOGGER.warn("[findByRouteIdAndTrainType] no price config for route {} and train type {}", routeId, trainType);
            return new Response<>(0, NO_SUCH_CONFIG, null);
        }
        return new Response<>(1, "Success", priceConfig);
    }

    @Override
    public Response findAllPriceConfig(HttpHeaders headers) {
        List<PriceConfig> configs = priceConfigRepository.findAll();
        if (configs == null || configs.isEmpty()) {
            LOGGER.warn("[findAllPriceConfig] the price config collection is empty");
            return new Response<>(0, "No price config", null);
        }
        return new Response<>(1, "Success", configs);
    }

    @Override
    public Response deletePriceConfig(PriceConfig c, HttpHeaders headers) {
        Optional<PriceConfig> stored = priceConfigRepository.findById(c.getId());
        if (!stored.isPresent()) {
            return new Response<>(0, NO_SUCH_CONFIG, null);
        }
        priceConfigRepository.delete(stored.get());
        LOGGER.info("[deletePriceConfig] removed config {}", c.getId());
        return new Response<>(1, "Delete success", stored.get());
    }
}

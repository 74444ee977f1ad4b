package consignprice.service;

import consignprice.entity.ConsignPrice;
import consignprice.repository.ConsignPriceConfigRepository;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;

/**
 * Consignment tariff: a flat fee covers parcels up to the base weight; every kilogram above
 * it is charged at one of two rates, depending on whether the trip stays inside the region.
 * Only one tariff document exists, stored under index {@link #TARIFF_INDEX}.
 */
@Service
public class ConsignPriceServiceImpl implements ConsignPriceService {

    private static final Logger log = LoggerFactory.getLogger(ConsignPriceServiceImpl.class);

    private static final int TARIFF_INDEX = 0;
    private static final String OK = "Success";

    @Autowired
    private ConsignPriceConfigRepository repository;

    @Override
    public Response getPriceByWeightAndRegion(double weight, boolean isWithinRegion, HttpHeaders headers) {
        ConsignPrice tariff = repository.findByIndex(TARIFF_INDEX);
        double base = tariff.getInitialPrice();
        double overweight = weight - tariff.getInitialWeight();
        if (overweight <= 0) {
            return new Response<>(1, OK, base);
        }

        double ratePerKg;
        if (isWithinRegion) {
            ratePerKg = tariff.getWithinPrice();
        } else {
            ratePerKg = tariff.getBeyondPrice();
        }
        double total = base + overweight * ratePerKg;
        log.debug("[getPriceByWeightAndRegion] weight={} withinRegion={} total={}", weight, isWithinRegion, total);
        return new Response<>(1, OK, total);
    }

    @Override
    public Response queryPriceInformation(HttpHeaders headers) {
        ConsignPrice tariff = repository.findByIndex(TARIFF_INDEX);
        String summary = String.format(
                "Up to %s kg the consignment costs %s. Each further kg costs %s inside the region and %s outside it.%n",
                tariff.getInitialWeight(), tariff.getInitialPrice(),
                tariff.getWithinPrice(), tariff.getBeyondPrice());
        return new Response<>(1, OK, summary);
    }

    @Override
    public Response createAndModifyPrice(ConsignPrice config, HttpHeaders headers) {
        log.info("[createAndModifyPrice] new tariff: base {} up to {} kg", config.getInitialPrice(), config.getInitialWeight());
        ConsignPrice tariff = repository.findByIndex(TARIFF_INDEX);
        if (tariff == null) {
            tariff = new ConsignPrice();
        }
        copyRates(config, tariff);
        tariff.setId(config.getId());
        tariff.setIndex(TARIFF_INDEX);
        repository.save(tariff);
        return new Response<>(1, OK, tariff);
    }

    @Override
    public Response getPriceConfig(HttpHeaders headers) {
        ConsignPrice tariff = repository.findByIndex(TARIFF_INDEX);
        if (tariff == null) {
            log.warn("[getPriceConfig] no tariff stored under index {}", TARIFF_INDEX);
        }
        return new Response<>(1, OK, tariff);
    }

    private static void copyRates(ConsignPrice from, ConsignPrice to) {
        to.setInitialWeight(from.getInitialWeight());
        to.setInitialPrice(from.getInitialPrice());
        to.setWithinPrice(from.getWithinPrice());
        to.setBeyondPrice(from.getBeyondPrice());
    }
}

package assurance.service;

import assurance.entity.Assurance;
import assurance.entity.AssuranceType;
import assurance.entity.AssuranceTypeBean;
import assurance.repository.AssuranceRepository;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Travel insurance attached to orders. At most one assurance exists per order; the available
 * assurance types and their prices come from the {@link AssuranceType} enum.
 */
@Service
public class AssuranceServiceImpl implements AssuranceService {

    private static final Logger LOGGER = LoggerFactory.getLogger(AssuranceServiceImpl.class);

    @Autowired
    private AssuranceRepository assuranceRepository;

    @Override
    public Response findAssuranceById(UUID id, HttpHeaders headers) {
        return assuranceRepository.findById(id)
                .map(found -> new Response<>(1, "Find Assurance Success", found))
                .orElseGet(() -> new Response<>(0, "No Content by this id", null));
    }

    @Override
    public Response findAssuranceByOrderId(UUID orderId, HttpHeaders headers) {
        Assurance found = assuranceRepository.findByOrderId(orderId);
        if (found == null) {
            return new Response<>(0, "No Content by this orderId", null);
        }
        return new Response<>(1, "Find Assurance Success", found);
    }

    @Override
    public Response create(int typeIndex, String orderId, HttpHeaders headers) {
        UUID order = UUID.fromString(orderId);
        Assurance existing = assuranceRepository.findByOrderId(order);
        if (existing != null) {
            LOGGER.error("[create] Fail, Assurance already exists, typeIndex: {}, orderId: {}", typeIndex, orderId);
            return new Response<>(0, "Fail.Assurance already exists", null);
        }
        AssuranceType type = AssuranceType.getTypeByIndex(typeIndex);
        if (type == null) {
            LOGGER.error("[create] Fail, unknown assurance type, typeIndex: {}, orderId: {}", typeIndex, orderId);
            return new Response<>(0, "Fail.Assurance type doesn't exist", null);
        }
        Assurance assurance = new Assurance(UUID.randomUUID(), order, type);
        assuranceRepository.save(assurance);
        LOGGER.info("[create] Success, typeIndex: {}, orderId: {}", typeIndex, orderId);
        return new Response<>(1, "Success", assurance);
    }

    @Override
    public Response getAllAssuranceTypes(HttpHeaders headers) {
        List<AssuranceTypeBean> types = new ArrayList<>();
        for (AssuranceType type : AssuranceType.values()) {
            types.add(describe(type));
        }
        if (types.isEmpty()) {
            return new Response<>(0, "Assurance is Empty", null);
        }
        return new Response<>(1, "Find All Assurance", types);
    }

    /** The client-facing view of one assurance type: index, display name and price. */
    private static AssuranceTypeBean describe(AssuranceType type) {
        AssuranceTypeBean bean = new AssuranceTypeBean();
        bean.setIndex(type.getIndex());
        bean.setName(type.getName());
        bean.setPrice(type.getPrice());
        return bean;
    }
}

package config.service;

import config.entity.Config;
import config.repository.ConfigRepository;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;

import java.util.List;

/**
 * Named system settings (for example DirectTicketAllocationProportion) kept in ts-config-mongo.
 * A config is identified by its name; create refuses duplicates, update and delete refuse
 * unknown names.
 */
@Service
public class ConfigServiceImpl implements ConfigService {

    private static final Logger LOGGER = LoggerFactory.getLogger(ConfigServiceImpl.class);

    @Autowired
    private ConfigRepository repository;

    @Override
    public Response create(Config info, HttpHeaders headers) {
        if (repository.findByName(info.getName()) != null) {
            LOGGER.warn("[create] config {} already exists", info.getName());
            return new Response<>(0, "Config " + info.getName() + " already exists.", null);
        }
        Config stored = copyOf(info);
        repository.save(stored);
        LOGGER.info("[create] config {} = {}", stored.getName(), stored.getValue());
        return new Response<>(1, "Create success", stored);
    }

    @Override
    public Response update(Config info, HttpHeaders headers) {
        if (repository.findByName(info.getName()) == null) {
            return unknown("update", info.getName());
        }
        Config stored = copyOf(info);
        repository.save(stored);
        LOGGER.info("[update] config {} = {}", stored.getName(), stored.getValue());
        return new Response<>(1, "Update success", stored);
    }

    @Override
    public Response query(String name, HttpHeaders headers) {
        Config config = repository.findByName(name);
        if (config == null) {
            LOGGER.info("[query] no config named {}", name);
            return new Response<>(0, "No content", null);
        }
        return new Response<>(1, "Success", config);
    }

    @Override
    public Response delete(String name, HttpHeaders headers) {
        Config config = repository.findByName(name);
        if (config == null) {
            return unknown("delete", name);
        }
        repository.deleteByName(name);
        LOGGER.info("[delete] config {} removed", name);
        return new Response<>(1, "Delete success", config);
    }

    @Override
    public Response queryAll(HttpHeaders headers) {
        List<Config> all = repository.findAll();
        if (all == null || all.isEmpty()) {
            return new Response<>(0, "No content", null);
        }
        return new Response<>(1, "Find all config success", all);
    }

    private static Config copyOf(Config info) {
        return new Config(info.getName(), info.getValue(), info.getDescription());
    }

    private static Response unknown(String operation, String name) {
        LOGGER.warn("[{}] config {} doesn't exist", operation, name);
        return new Response<>(0, "Config " + name + " doesn't exist.", null);
    }
}

package train.service;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;
import train.entity.TrainType;
import train.repository.TrainTypeRepository;

import java.util.List;
import java.util.Optional;

/**
 * CRUD on train types. A train type's name is unique; its id is assigned by the repository
 * on creation and given by the caller on update.
 */
@Service
public class TrainServiceImpl implements TrainService {

    private static final Logger LOGGER = LoggerFactory.getLogger(TrainServiceImpl.class);

    @Autowired
    private TrainTypeRepository repository;

    @Override
    public boolean create(TrainType trainType, HttpHeaders headers) {
        String name = trainType.getName();
        if (repository.findByName(name) != null) {
            LOGGER.error("[create] Create train error.Train already exists, TrainTypeName: {}", name);
            return false;
        }
        repository.save(copyOf(trainType));
        return true;
    }

    @Override
    public TrainType retrieve(String id, HttpHeaders headers) {
        Optional<TrainType> found = repository.findById(id);
        if (!found.isPresent()) {
            LOGGER.error("[retrieve] Retrieve train error.Train not found, TrainTypeId: {}", id);
            return null;
        }
        return found.get();
    }

    @Override
    public TrainType retrieveByName(String name, HttpHeaders headers) {
        TrainType type = repository.findByName(name);
        if (type == null) {
            LOGGER.error("[retrieveByName] Retrieve train error.Train not found, TrainTypeName: {}", name);
        }
        return type;
    }

    @Override
    public boolean update(TrainType trainType, HttpHeaders headers) {
        String id = trainType.getId();
        if (!repository.findById(id).isPresent()) {
            LOGGER.error("[update] Update train error.Train not found, TrainTypeId: {}", id);
            return false;
        }
        TrainType updated = copyOf(trainType);
        updated.setId(id);
        repository.save(updated);
        return true;
    }

    @Override
    public List<TrainType> query(HttpHeaders headers) {
        return repository.findAll();
    }

    private static TrainType copyOf(TrainType source) {
        return new TrainType(source.getName(), source.getEconomyClass(), source.getConfortClass(), source.getAverageSpeed());
    }
}

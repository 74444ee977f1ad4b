package train.repository;

import org.springframework.data.mongodb.repository.MongoRepository;
import org.springframework.stereotype.Repository;
import train.entity.TrainType;

import java.util.List;

/**
 * @author fdse
 */
@Repository
public interface TrainTypeRepository extends MongoRepository<TrainType, String> {

    TrainType findByName(String name);

    @Override
    List<TrainType> findAll();
}

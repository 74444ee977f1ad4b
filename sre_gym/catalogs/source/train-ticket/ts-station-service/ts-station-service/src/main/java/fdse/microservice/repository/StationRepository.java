package fdse.microservice.repository;

import fdse.microservice.entity.Station;
import org.springframework.data.mongodb.repository.MongoRepository;
import org.springframework.data.mongodb.repository.Query;
import org.springframework.stereotype.Repository;

import java.util.List;

/**
 * @author fdse
 */
@Repository
public interface StationRepository extends MongoRepository<Station, String> {

    Station findByName(String name);

    @Query("{ 'name': { $in: ?0 } }")
    List<Station> findByNames(List<String> names);
}

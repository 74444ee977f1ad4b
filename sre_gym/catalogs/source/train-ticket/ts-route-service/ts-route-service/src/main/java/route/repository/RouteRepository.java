package route.repository;

import org.springframework.data.mongodb.repository.MongoRepository;
import org.springframework.stereotype.Repository;
import route.entity.Route;

import java.util.List;

/**
 * @author fdse
 */
@Repository
public interface RouteRepository extends MongoRepository<Route, String> {

    @Override
    List<Route> findAll();
}

package security.repository;

import org.springframework.data.mongodb.repository.MongoRepository;
import org.springframework.stereotype.Repository;
import security.entity.SecurityConfig;

import java.util.ArrayList;

/**
 * @author fdse
 */
@Repository
public interface SecurityRepository extends MongoRepository<SecurityConfig, String> {

    SecurityConfig findByName(String name);

    @Override
    ArrayList<SecurityConfig> findAll();
}

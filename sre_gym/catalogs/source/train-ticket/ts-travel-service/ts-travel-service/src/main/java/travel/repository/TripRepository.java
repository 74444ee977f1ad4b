package travel.repository;

import org.springframework.data.mongodb.repository.MongoRepository;
import org.springframework.stereotype.Repository;
import travel.entity.Trip;
import travel.entity.TripId;

import java.util.ArrayList;

/**
 * @author fdse
 */
@Repository
public interface TripRepository extends MongoRepository<Trip, TripId> {

    Trip findByTripId(TripId tripId);

    @Override
    ArrayList<Trip> findAll();
}

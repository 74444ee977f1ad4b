package contacts.service;

import contacts.entity.Contacts;
import contacts.repository.ContactsRepository;
import edu.fudan.common.util.Response;
import java.util.ArrayList;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;

/**
 * Contacts are the travellers an account books tickets for (name, document, phone).
 * Each one belongs to exactly one account.
 */
@Service
public class ContactsServiceImpl implements ContactsService {

    private static final Logger log = LoggerFactory.getLogger(ContactsServiceImpl.class);

    @Autowired
    private ContactsRepository contactsRepository;

    @Override
    public Response findContactsById(UUID id, HttpHeaders headers) {
        log.info("[findContactsById] id: {}", id);
        Optional<Contacts> found = contactsRepository.findById(id);
        return found.<Response>map(c -> new Response<>(1, "Success", c))
                .orElseGet(() -> new Response<>(0, "No contacts according to contacts id", null));
    }

    @Override
    public Response findContactsByAccountId(UUID accountId, HttpHeaders headers) {
        ArrayList<Contacts> owned = contactsRepository.findByAccountId(accountId);
        log.info("[findContactsByAccountId] Result Size: {}", owned.size());
        return new Response<>(1, "Success", owned);
    }

    @Override
    public Response create(Contacts addContacts, HttpHeaders headers) {
        Optional<Contacts> existing = contactsRepository.findById(addContacts.getId());
        if (existing.isPresent()) {
            log.warn("[create] id {} is taken", addContacts.getId());
            return new Response<>(0, "Already Exists", existing.get());
        }
        contactsRepository.save(addContacts);
        return new Response<>(1, "Create Success", null);
    }

    @Override
    public Response createContacts(Contacts contacts, HttpHeaders headers) {
        if (isDuplicate(contacts)) {
            log.warn("[createContacts] account {} already has this contact", contacts.getAccountId());
            return new Response<>(0, "Contacts already exists", null);
        }
        Contacts saved = contactsRepository.save(contacts);
        return new Response<>(1, "Create contacts success", saved);
    }

    @Override
    public Response delete(UUID contactsId, HttpHeaders headers) {
        contactsRepository.deleteById(contactsId);
        boolean gone = !contactsRepository.findById(contactsId).isPresent();
        if (!gone) {
            log.error("[delete] contact {} is still stored after deletion", contactsId);
            return new Response<>(0, "Delete failed", contactsId);
        }
        return new Response<>(1, "Delete success", contactsId);
    }

    /** A contact is a duplicate when its account already holds an equal one. */
    private boolean isDuplicate(Contacts candidate) {
        ArrayList<Contacts> sameAccount = contactsRepository.findByAccountId(candidate.getAccountId());
        return sameAccount != null && sameAccount.contains(candidate);
    }
}

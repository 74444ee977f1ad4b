package contacts.controller;

import contacts.entity.Contacts;
import java.util.UUID;
import contacts.service.ContactsService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.web.bind.annotation.*;

import static org.springframework.http.ResponseEntity.ok;

/**
 * @author fdse
 */
@RestController
@RequestMapping("/api/v1/contactservice")
public class ContactsController {

    private static final Logger LOGGER = LoggerFactory.getLogger(ContactsController.class);

    @Autowired
    private ContactsService contactsService;

    @GetMapping(path = "/welcome")
    public String home(@RequestHeader HttpHeaders headers) {
        return "Welcome to [ Contacts Service ] !";
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/contacts")
    public HttpEntity createNewContacts(@RequestBody Contacts aci, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[createNewContacts][Create new contacts]");
        return ok(contactsService.createContacts(aci, headers));
    }

    @CrossOrigin(origins = "*")
    @PostMapping(path = "/contacts/admin")
    public HttpEntity createNewContactsAdmin(@RequestBody Contacts aci, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[createNewContactsAdmin][Create new contacts by admin]");
        return ok(contactsService.create(aci, headers));
    }

    @CrossOrigin(origins = "*")
    @DeleteMapping(path = "/contacts/{contactsId}")
    public HttpEntity deleteContacts(@PathVariable String contactsId, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[deleteContacts][Delete contacts][contactsId: {}]", contactsId);
        return ok(contactsService.delete(UUID.fromString(contactsId), headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/contacts/account/{accountId}")
    public HttpEntity findContactsByAccountId(@PathVariable String accountId, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[findContactsByAccountId][Find contacts by account id]");
        return ok(contactsService.findContactsByAccountId(UUID.fromString(accountId), headers));
    }

    @CrossOrigin(origins = "*")
    @GetMapping(path = "/contacts/{id}")
    public HttpEntity getContactsByContactsId(@PathVariable String id, @RequestHeader HttpHeaders headers) {
        LOGGER.info("[getContactsByContactsId][Get contacts by id][id: {}]", id);
        return ok(contactsService.findContactsById(UUID.fromString(id), headers));
    }
}

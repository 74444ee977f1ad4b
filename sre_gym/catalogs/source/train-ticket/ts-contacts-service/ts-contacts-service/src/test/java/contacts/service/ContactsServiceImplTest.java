package contacts.service;

import contacts.entity.Contacts;
import contacts.repository.ContactsRepository;
import edu.fudan.common.util.Response;
import java.util.ArrayList;
import java.util.Optional;
import java.util.UUID;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpHeaders;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

public class ContactsServiceImplTest {

    @Mock
    private ContactsRepository contactsRepository;

    @InjectMocks
    private ContactsServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testFindContactsByIdMissing() {
        UUID id = UUID.randomUUID();
        when(contactsRepository.findById(id)).thenReturn(Optional.empty());
        assertEquals(Integer.valueOf(0), service.findContactsById(id, headers).getStatus());
    }

    @Test
    public void testFindContactsByAccountIdEmpty() {
        UUID account = UUID.randomUUID();
        when(contactsRepository.findByAccountId(account)).thenReturn(new ArrayList<>());
        Response<?> result = service.findContactsByAccountId(account, headers);
        assertEquals(Integer.valueOf(1), result.getStatus());
    }

    @Test
    public void testCreateContactsDuplicate() {
        Contacts contact = new Contacts();
        contact.setAccountId(UUID.randomUUID());
        ArrayList<Contacts> owned = new ArrayList<>();
        owned.add(contact);
        when(contactsRepository.findByAccountId(contact.getAccountId())).thenReturn(owned);

        assertEquals(Integer.valueOf(0), service.createContacts(contact, headers).getStatus());
        verify(contactsRepository, never()).save(any(Contacts.class));
    }
}

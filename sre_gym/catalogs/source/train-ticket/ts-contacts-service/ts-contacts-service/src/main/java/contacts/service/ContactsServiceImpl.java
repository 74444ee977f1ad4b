/*
 * Licensed to the Apache Software Foundation (ASF) under one or more
 * contributor license agreements.  See the NOTICE file distributed with
 * this work for additional information regarding copyright ownership.
 * The ASF licenses this file to You under the Apache License, Version 2.0
 * (the "License"); you may not use this file except in compliance with
 * the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package contacts.service;

import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;
import contacts.entity.*;
import contacts.repository.*;
import java.util.ArrayList;
import java.util.UUID;

/**
 * @author fdse
 */
@Service
public class ContactsServiceImpl implements ContactsService {

    @Autowired
    private ContactsRepository contactsRepository;

    private static final Logger LOGGER = LoggerFactory.getLogger(ContactsServiceImpl.class);

    @Override
    public Response findContactsById(UUID id, HttpHeaders headers) {
        ContactsServiceImpl.LOGGER.info("FIND CONTACTS BY ID: " + id);
        Contacts contacts = contactsRepository.findById(id).orElse(null);
        if (contacts != null) {
            return new Response<>(1, "Success", contacts);
        } else {
            return new Response<>(0, "No contacts according to contacts id", null);
        }
    }

    @Override
    public Response findContactsByAccountId(UUID accountId, HttpHeaders headers) {
        ArrayList<Contacts> arr = contactsRepository.findByAccountId(accountId);
        ContactsServiceImpl.LOGGER.info("[findContactsByAccountId] Result Size: {}", arr.size());
        return new Response<>(1, "Success", arr);
    }

    @Override
    public Response create(Contacts addContacts, HttpHeaders headers) {
        Contacts contacts = contactsRepository.findById(addContacts.getId()).orElse(null);
        if (contacts != null) {
            ContactsServiceImpl.LOGGER.warn("[create] Contacts already exists, contactsId: {}", addContacts.getId());
            return new Response<>(0, "Already Exists", contacts);
        } else {
            contactsRepository.save(addContacts);
            return new Response<>(1, "Create Success", null);
        }
    }

    @Override
    public Response createContacts(Contacts contacts, HttpHeaders headers) {
        ArrayList<Contacts> accountContacts = contactsRepository.findByAccountId(contacts.getAccountId());
        if (accountContacts.contains(contacts)) {
            ContactsServiceImpl.LOGGER.warn("[createContacts] Contacts already exists, contactsId: {}", contacts.getId());
            return new Response<>(0, "Contacts already exists", null);
        } else {
            contactsRepository.save(contacts);
            return new Response<>(1, "Create contacts success", contacts);
        }
    }

    @Override
    public Response delete(UUID contactsId, HttpHeaders headers) {
        contactsRepository.deleteById(contactsId);
        Contacts contacts = contactsRepository.findById(contactsId).orElse(null);
        if (contacts == null) {
            return new Response<>(1, "Delete success", contactsId);
        } else {
            return new Response<>(0, "Delete failed", contactsId);
        }
    }
}

package auth.service.impl;

import static org.junit.Assert.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

import auth.dto.BasicAuthDto;
import auth.dto.TokenDto;
import auth.entity.User;
import auth.repository.UserRepository;
import auth.security.jwt.JWTProvider;
import edu.fudan.common.util.Response;
import java.util.Optional;
import java.util.UUID;
import org.junit.Before;
import org.junit.Test;
import org.mockito.InjectMocks;
import org.mockito.Mock;
import org.mockito.MockitoAnnotations;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.web.client.RestTemplate;

public class TokenServiceImplTest {

    private static final String VERIFY = "http://ts-verification-code-service:15678/api/v1/verifycode/verify/";

    @Mock
    private UserRepository userRepository;

    @Mock
    private RestTemplate restTemplate;

    @Mock
    private AuthenticationManager authenticationManager;

    @Mock
    private JWTProvider jwtProvider;

    @InjectMocks
    private TokenServiceImpl service;

    private final HttpHeaders headers = new HttpHeaders();

    @Before
    public void initMocks() {
        MockitoAnnotations.initMocks(this);
    }

    @Test
    public void testGetTokenVerificationFailed() throws Exception {
        when(restTemplate.exchange(eq(VERIFY + "abcd"), eq(HttpMethod.GET), any(HttpEntity.class), eq(Boolean.class)))
                .thenReturn(ResponseEntity.ok(false));

        Response result = service.getToken(new BasicAuthDto("fdse_microservice", "111111", "abcd"), headers);

        assertEquals("Verification failed.", result.getMsg());
        verifyNoInteractions(authenticationManager);
    }

    @Test
    public void testGetTokenSuccess() throws Exception {
        User user = new User();
        user.setUserId(UUID.randomUUID());
        user.setUsername("fdse_microservice");
        when(userRepository.findByUsername("fdse_microservice")).thenReturn(Optional.of(user));
        when(jwtProvider.createToken(user)).thenReturn("jwt");

        Response result = service.getToken(new BasicAuthDto("fdse_microservice", "111111", ""), headers);

        assertEquals(Integer.valueOf(1), result.getStatus());
        assertEquals("jwt", ((TokenDto) result.getData()).getToken());
        verifyNoInteractions(restTemplate);
    }
}

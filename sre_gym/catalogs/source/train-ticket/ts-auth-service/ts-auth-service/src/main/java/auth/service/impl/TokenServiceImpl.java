package auth.service.impl;

import auth.dto.BasicAuthDto;
import auth.dto.TokenDto;
import auth.entity.User;
import auth.exception.UserOperationException;
import auth.repository.UserRepository;
import auth.security.jwt.JWTProvider;
import auth.service.TokenService;
import edu.fudan.common.util.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

/**
 * Login: checks the optional captcha with ts-verification-code-service, authenticates the
 * credentials against the user store and issues a JWT for the user.
 */
@Service
public class TokenServiceImpl implements TokenService {

    private static final Logger LOGGER = LoggerFactory.getLogger(TokenServiceImpl.class);

    private static final String VERIFY_CODE_URL = "http://ts-verification-code-service:15678/api/v1/verifycode/verify/";

    @Autowired
    private JWTProvider jwtProvider;

    @Autowired
    private UserRepository userRepository;

    @Autowired
    private AuthenticationManager authenticationManager;

    @Autowired
    private RestTemplate restTemplate;

    @Override
    public Response getToken(BasicAuthDto dto, HttpHeaders headers) throws UserOperationException {
        String username = dto.getUsername();
        String verifyCode = dto.getVerificationCode();
        LOGGER.info("[getToken] LOGIN USER: {}, VERIFICATION CODE: {}", username, verifyCode);

        boolean captchaGiven = verifyCode != null && !verifyCode.isEmpty();
        if (captchaGiven && !captchaAccepted(verifyCode, headers)) {
            LOGGER.info("[getToken] Verification failed, userName: {}", username);
            return new Response<>(0, "Verification failed.", null);
        }

        try {
            authenticationManager.authenticate(new UsernamePasswordAuthenticationToken(username, dto.getPassword()));
        } catch (BadCredentialsException e) {
            LOGGER.warn("[getToken] bad credentials for user {}", username);
            return new Response<>(0, "Incorrect username or password.", null);
        }

        User user = userRepository.findByUsername(username)
                .orElseThrow(() -> new UserOperationException("[getToken] User: " + username + " not found"));
        String token = jwtProvider.createToken(user);
        LOGGER.info("[getToken] token: {}, userId: {}", token, user.getUserId());
        return new Response<>(1, "login success", new TokenDto(user.getUserId(), username, token));
    }

    /** Asks the verification code service whether {@code code} matches the captcha it issued. */
    private boolean captchaAccepted(String code, HttpHeaders headers) {
        ResponseEntity<Boolean> reply = restTemplate.exchange(
                VERIFY_CODE_URL + code, HttpMethod.GET, new HttpEntity<>(headers), Boolean.class);
        return Boolean.TRUE.equals(reply.getBody());
    }
}

package verifycode.service.impl;

import org.junit.Assert;
import org.junit.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import javax.servlet.http.Cookie;
import java.awt.Color;
import java.util.Map;

public class VerifyCodeServiceImplTest {

    private final VerifyCodeServiceImpl verifyCodeService = new VerifyCodeServiceImpl();

    private final HttpHeaders headers = new HttpHeaders();

    @Test
    public void testGetRandColor() {
        for (int i = 0; i < 100; i++) {
            Color c = VerifyCodeServiceImpl.getRandColor(200, 250);
            Assert.assertTrue(c.getRed() >= 200 && c.getRed() < 250);
            Assert.assertTrue(c.getBlue() >= 200 && c.getBlue() < 250);
        }
    }

    @Test
    public void testVerifyCodeIgnoresCase() {
        MockHttpServletRequest request = new MockHttpServletRequest();
        request.setCookies(new Cookie("YsbCaptcha", "0123456789ABCDEF0123456789ABCDEF"));
        MockHttpServletResponse response = new MockHttpServletResponse();

        Map<String, Object> drawn = verifyCodeService.getImageCode(0, 0, null, request, response, headers);
        String code = (String) drawn.get("strEnsure");

        Assert.assertTrue(verifyCodeService.verifyCode(request, response, code.toUpperCase(), headers));
        Assert.assertFalse(verifyCodeService.verifyCode(request, response, "!!!!", headers));
    }
}

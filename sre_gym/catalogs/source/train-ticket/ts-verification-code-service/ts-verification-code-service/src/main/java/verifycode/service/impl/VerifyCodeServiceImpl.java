package verifycode.service.impl;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Service;
import verifycode.service.VerifyCodeService;
import verifycode.util.CookieUtil;

import javax.servlet.http.Cookie;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Captchas for the login page. A visitor is recognised by the id in its captcha cookie; the text
 * of the last image drawn for that id is kept in memory until it expires, and checked case-insensitively.
 */
@Service
public class VerifyCodeServiceImpl implements VerifyCodeService {

    private static final Logger LOGGER = LoggerFactory.getLogger(VerifyCodeServiceImpl.class);

    /** Lifetime of a captcha and of its cookie, in seconds. */
    public static final int CAPTCHA_EXPIRED = 1000;

    private static final String CAPTCHA_COOKIE = "YsbCaptcha";
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    private static final int CODE_LENGTH = 4;
    private static final int NOISE_LINES = 168;
    private static final int DEFAULT_WIDTH = 60;
    private static final int DEFAULT_HEIGHT = 20;

    private static final Cache<String, String> cacheCode = CacheBuilder.newBuilder()
            .expireAfterAccess(CAPTCHA_EXPIRED, TimeUnit.SECONDS)
            .build();

    @Override
    public Map<String, Object> getImageCode(int width, int height, OutputStream os, HttpServletRequest request,
                                            HttpServletResponse response, HttpHeaders headers) {
        int w = width > 0 ? width : DEFAULT_WIDTH;
        int h = height > 0 ? height : DEFAULT_HEIGHT;
        ThreadLocalRandom random = ThreadLocalRandom.current();

        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        StringBuilder code = new StringBuilder(CODE_LENGTH);
        try {
            g.setColor(getRandColor(200, 250));
            g.fillRect(0, 0, w, h);

            // short random strokes, lighter than the text, to make the image harder to read by machine
            g.setColor(getRandColor(160, 200));
            for (int i = 0; i < NOISE_LINES; i++) {
                int x = random.nextInt(w);
                int y = random.nextInt(h);
                g.drawLine(x, y, x + random.nextInt(12), y + random.nextInt(12));
            }

            g.setFont(new Font("Times New Roman", Font.PLAIN, 18));
            for (int i = 0; i < CODE_LENGTH; i++) {
                char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
                code.append(c);
                g.setColor(new Color(20 + random.nextInt(110), 20 + random.nextInt(110), 20 + random.nextInt(110)));
                g.drawString(String.valueOf(c), 13 * i + 6, 16);
            }
        } finally {
            g.dispose();
        }

        String cookieId = captchaId(request, response);
        String strEnsure = code.toString();
        LOGGER.info("[getImageCode] cookieId: {}, strEnsure: {}", cookieId, strEnsure);
        cacheCode.put(cookieId, strEnsure);

        Map<String, Object> result = new HashMap<>();
        result.put("image", image);
        result.put("strEnsure", strEnsure);
        return result;
    }

    @Override
    public boolean verifyCode(HttpServletRequest request, HttpServletResponse response, String receivedCode,
                              HttpHeaders headers) {
        String cookieId = captchaId(request, response);
        String expected = cacheCode.getIfPresent(cookieId);
        LOGGER.info("[verifyCode] Get Code By cookieId: {}, code: {}", cookieId, expected);
        return expected != null && expected.equalsIgnoreCase(receivedCode);
    }

    /** The id in the visitor's captcha cookie; a visitor without one gets a new cookie. */
    private static String captchaId(HttpServletRequest request, HttpServletResponse response) {
        Cookie cookie = CookieUtil.getCookieByName(request, CAPTCHA_COOKIE);
        if (cookie != null) {
            return cookie.getValue();
        }
        String id = UUID.randomUUID().toString().replace("-", "").toUpperCase();
        CookieUtil.addCookie(response, CAPTCHA_COOKIE, id, CAPTCHA_EXPIRED);
        return id;
    }

    /** A random colour whose channels lie in [fc, bc), both capped at 255. */
    static Color getRandColor(int fc, int bc) {
        int low = Math.min(fc, 255);
        int high = Math.min(bc, 255);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return new Color(low + random.nextInt(high - low), low + random.nextInt(high - low), low + random.nextInt(high - low));
    }
}

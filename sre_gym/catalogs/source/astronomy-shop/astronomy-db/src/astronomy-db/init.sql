-- Bootstrap of the shop database: the product catalog (read by product-catalog)
-- and an empty schema where accounting keeps its ledger.

CREATE USER otelu WITH PASSWORD 'otelp';

CREATE SCHEMA catalog;
CREATE SCHEMA accounting;

-- Prices are stored as google.type.Money: whole units plus nanos (10^-9 units).
CREATE TABLE catalog.products (
    id                  TEXT    PRIMARY KEY,
    name                TEXT    NOT NULL,
    description         TEXT    NOT NULL,
    picture             TEXT    NOT NULL,
    price_currency_code TEXT    NOT NULL,
    price_units         BIGINT  NOT NULL,
    price_nanos         INTEGER NOT NULL CHECK (price_nanos BETWEEN 0 AND 999999999),
    categories          TEXT[]  NOT NULL
);

INSERT INTO catalog.products
    (id, name, description, picture, price_currency_code, price_units, price_nanos, categories)
VALUES
    ('OLJCESPC7Z', 'National Park Foundation Explorascope',
     'The National Park Foundation''s (U.S.) Explorascope 60AZ is a manual alt-azimuth, refractor telescope.',
     'NationalParkFoundationExplorascope.jpg', 'USD', 101, 960000000, ARRAY['telescopes']),
    ('66VCHSJNUP', 'Starsense Explorer Refractor Telescope',
     'The first telescope that uses your smartphone to analyze the night sky and calculate its position in real time.',
     'StarsenseExplorer.jpg', 'USD', 349, 950000000, ARRAY['telescopes']),
    ('1YMWWN1N4O', 'Eclipsmart Travel Refractor Telescope',
     'Dedicated white-light solar scope for the observer on the go.',
     'EclipsmartTravelRefractorTelescope.jpg', 'USD', 129, 950000000, ARRAY['telescopes', 'travel']),
    ('L9ECAV7KIM', 'Lens Cleaning Kit',
     'Wipe away dust, dirt, fingerprints and other particles on your lenses to see clearly.',
     'LensCleaningKit.jpg', 'USD', 21, 950000000, ARRAY['accessories']),
    ('2ZYFJ3GM2N', 'Roof Binoculars',
     'This versatile, all-around binocular is a great choice for the trail, the stadium, the arena, or just about anywhere.',
     'RoofBinoculars.jpg', 'USD', 209, 950000000, ARRAY['binoculars']),
    ('0PUK6V6EV0', 'Solar System Color Imager',
     'You have your new telescope and have observed Saturn and Jupiter. Now you''re ready to take the next step.',
     'SolarSystemColorImager.jpg', 'USD', 175, 0, ARRAY['accessories', 'telescopes']),
    ('LS4PSXUNUM', 'Red Flashlight',
     'This 3-in-1 device features a 3-mode red flashlight, a hand warmer, and a portable power bank.',
     'RedFlashlight.jpg', 'USD', 57, 80000000, ARRAY['accessories', 'flashlights']),
    ('9SIQT8TOJO', 'Optical Tube Assembly',
     'Capturing impressive deep-sky astroimages is easier than ever with Rowe-Ackermann Schmidt Astrograph.',
     'OpticalTubeAssembly.jpg', 'USD', 3599, 0, ARRAY['accessories', 'telescopes', 'assembly']),
    ('6E92ZMYYFZ', 'Solar Filter',
     'Enhance your viewing experience with EclipSmart Solar Filter for 8 inches telescopes.',
     'SolarFilter.jpg', 'USD', 69, 950000000, ARRAY['accessories', 'telescopes']),
    ('HQTGWGPNH4', 'The Comet Book',
     'A 16th-century treatise on comets, created anonymously in Flanders.',
     'TheCometBook.jpg', 'USD', 0, 990000000, ARRAY['books']);

-- product-catalog only reads the catalog; accounting owns its schema.
GRANT USAGE ON SCHEMA catalog TO otelu;
GRANT SELECT ON ALL TABLES IN SCHEMA catalog TO otelu;
GRANT ALL ON SCHEMA accounting TO otelu;

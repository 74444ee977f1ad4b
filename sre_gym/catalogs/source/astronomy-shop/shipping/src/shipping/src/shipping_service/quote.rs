//! Shipping cost: asks the quote service what shipping `count` items costs and turns its
//! decimal answer (USD) into whole dollars and cents.

use std::{collections::HashMap, env, fmt};

use anyhow::{Context, Result};
use opentelemetry::trace::get_active_span;
use opentelemetry::KeyValue;
use reqwest_middleware::ClientBuilder;

const DEFAULT_QUOTE_ADDR: &str = "http://quote:8090";
const QUOTE_PATH: &str = "/getquote";

/// A shipping cost in USD.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Quote {
    pub dollars: i64,
    pub cents: i32,
}

impl fmt::Display for Quote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}.{:02}", self.dollars, self.cents)
    }
}

/// Quote for `count` items. An empty shipment is free and never reaches the quote service.
pub async fn create_quote_from_count(count: u32) -> Result<Quote> {
    let total = match count {
        0 => 0.0,
        n => request_quote(n).await?,
    };
    let quote = create_quote_from_float(total);

    get_active_span(|span| {
        let shown = quote.to_string();
        span.add_event(
            "Received Quote",
            vec![KeyValue::new("app.shipping.cost.total", shown.clone())],
        );
        span.set_attribute(KeyValue::new("app.shipping.items.count", i64::from(count)));
        span.set_attribute(KeyValue::new("app.shipping.cost.total", shown));
    });

    Ok(quote)
}

fn quote_url() -> String {
    let base = env::var("QUOTE_ADDR").unwrap_or_else(|_| DEFAULT_QUOTE_ADDR.to_string());
    format!("{}{}", base.trim_end_matches('/'), QUOTE_PATH)
}

/// POSTs `{"numberOfItems": count}` to the quote service; the reply body is a bare number.
async fn request_quote(count: u32) -> Result<f64> {
    let body = HashMap::from([("numberOfItems", count)]);
    let client = ClientBuilder::new(reqwest::Client::new()).build();

    let resp = client
        .post(quote_url())
        .json(&body)
        .send()
        .await
        .context("failed to call quote service")?
        .text()
        .await
        .context("failed to read quote response")?;

    tracing::debug!(quote = resp.as_str(), "Received quote");

    resp.trim().parse::<f64>().context("quote is not a number")
}

/// Splits a non-negative amount into dollars and cents (fractions of a cent are dropped
/// from the dollars, the cents are rounded and capped at 99).
pub fn create_quote_from_float(value: f64) -> Quote {
    Quote {
        dollars: value.trunc() as i64,
        cents: ((value.fract() * 100.0).round() as i32).min(99),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_splits_dollars_and_cents() {
        assert_eq!(create_quote_from_float(12.34), Quote { dollars: 12, cents: 34 });
        assert_eq!(create_quote_from_float(89.6), Quote { dollars: 89, cents: 60 });
    }

    #[test]
    fn zero_is_free() {
        assert_eq!(create_quote_from_float(0.0), Quote::default());
    }

    #[test]
    fn cents_never_overflow_into_dollars() {
        assert_eq!(create_quote_from_float(7.999), Quote { dollars: 7, cents: 99 });
    }

    #[test]
    fn display_pads_cents() {
        assert_eq!(Quote { dollars: 5, cents: 7 }.to_string(), "$5.07");
    }
}

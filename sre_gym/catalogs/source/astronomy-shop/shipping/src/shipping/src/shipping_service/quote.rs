// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

use anyhow::{Context, Result};
use core::fmt;
use std::{collections::HashMap, env};

use opentelemetry::global;
use opentelemetry::trace::{get_active_span, Span, Tracer};
use opentelemetry::KeyValue;
use opentelemetry_http::HeaderInjector;
use reqwest_middleware::ClientBuilder;

#[derive(Debug, Default)]
pub struct Quote {
    pub dollars: i64,
    pub cents: i32,
}

// TODO: Check production
impl fmt::Display for Quote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}.{}", self.dollars, self.cents)
    }
}

pub async fn create_quote_from_count(count: u32) -> Result<Quote, anyhow::Error> {
    let f = if count == 0 {
        0.0
    } else {
        request_quote(count).await?
    };

    Ok(get_active_span(|span| {
        let q = create_quote_from_float(f);
        span.add_event(
            "Received Quote".to_string(),
            vec![KeyValue::new("app.shipping.cost.total", format!("{}", q))],
        );
        span.set_attribute(KeyValue::new("app.shipping.items.count", count as i64));
        span.set_attribute(KeyValue::new("app.shipping.cost.total", format!("{}", q)));
        q
    }))
}

async fn request_quote(count: u32) -> Result<f64, anyhow::Error> {
    let quote_service_addr: String = format!(
        "{}{}",
        env::var("QUOTE_ADDR")
            .unwrap_or_else(|_| "http://quote:8090".to_string()),
        "/getquote"
    );

    let mut reqbody = HashMap::new();
    reqbody.insert("numberOfItems", count);

    let client = ClientBuilder::new(reqwest::Client::new()).build();

    let resp = client
        .post(quote_service_addr)
        .json(&reqbody)
        .send()
        .await
        .context("failed to call quote service")?
        .text_with_charset("utf-8")
        .await
        .context("failed to read quote response")?;

    tracing::debug!(quote = resp.as_str(), "Received quote");

    let quote = resp.parse::<f64>().context("quote is not a number")?;
    Ok(quote)
}

pub fn create_quote_from_float(value: f64) -> Quote {
    Quote {
        dollars: value.floor() as i64,
        cents: ((value * 100_f64).floor() as i32) % 100,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_splits_dollars_and_cents() {
        let q = create_quote_from_float(12.34);
        assert_eq!(q.dollars, 12);
        assert_eq!(q.cents, 34);
    }
}

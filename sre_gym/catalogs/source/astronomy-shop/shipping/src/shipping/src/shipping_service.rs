// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

use actix_web::{post, web, HttpResponse, Responder};
use log::info;
use opentelemetry::global;
use opentelemetry::trace::{get_active_span, Span, Status, Tracer};
use opentelemetry::KeyValue;

mod quote;
use quote::create_quote_from_count;

mod tracking;
use tracking::create_tracking_id;

use crate::shipping_service::quote::Quote;
use crate::shipping_service::tracking::TrackingId;

const NANOS_MULTIPLE: u32 = 10000000u32;

#[derive(Debug, serde::Deserialize)]
pub struct GetQuoteRequest {
    pub address: Option<Address>,
    pub items: Vec<CartItem>,
}

#[derive(Debug, serde::Deserialize)]
pub struct Address {
    pub street_address: String,
    pub city: String,
    pub state: String,
    pub country: String,
    pub zip_code: String,
}

#[derive(Debug, serde::Deserialize)]
pub struct CartItem {
    pub product_id: String,
    pub quantity: u32,
}

#[derive(Debug, serde::Serialize)]
pub struct Money {
    pub currency_code: String,
    pub units: i64,
    pub nanos: i32,
}

#[post("/get-quote")]
pub async fn get_quote(req: web::Json<GetQuoteRequest>) -> impl Responder {
    let itemct: u32 = req.items.iter().fold(0, |accum, cart_item| accum + cart_item.quantity);

    let quote = match create_quote_from_count(itemct).await {
        Ok(q) => q,
        Err(e) => {
            log::error!("Failed to get quote: {}", e);
            return HttpResponse::InternalServerError().body(format!("Failed to get quote: {}", e));
        }
    };

    let reply = serde_json::json!({
        "cost_usd": Money {
            currency_code: "USD".into(),
            units: quote.dollars,
            nanos: quote.cents * NANOS_MULTIPLE as i32,
        }
    });

    info!(
        name = "SendingQuoteValue",
        quote.dollars = quote.dollars,
        quote.cents = quote.cents,
        message = "Sending Quote"
    );

    HttpResponse::Ok().json(reply)
}

#[post("/ship-order")]
pub async fn ship_order(req: web::Json<GetQuoteRequest>) -> impl Responder {
    let tid = create_tracking_id();

    get_active_span(|span| {
        span.set_attribute(KeyValue::new("app.shipping.tracking.id", tid.clone()));
    });

    info!(
        name = "CreatingTrackingId",
        tracking_id = tid.as_str(),
        message = "Tracking ID Created"
    );

    HttpResponse::Ok().json(serde_json::json!({ "tracking_id": tid }))
}

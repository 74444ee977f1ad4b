//! HTTP API of the shipping service (called by checkout and the frontend):
//! `POST /get-quote` prices a cart, `POST /ship-order` hands out a tracking id.

use actix_web::{post, web, HttpResponse, Responder};
use log::info;
use opentelemetry::trace::get_active_span;
use opentelemetry::KeyValue;

mod quote;
use quote::{create_quote_from_count, Quote};

mod tracking;
use tracking::create_tracking_id;

/// One cent expressed in the nanos of a Money value.
const NANOS_PER_CENT: i32 = 10_000_000;

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

impl From<Quote> for Money {
    fn from(quote: Quote) -> Self {
        Money {
            currency_code: "USD".to_string(),
            units: quote.dollars,
            nanos: quote.cents * NANOS_PER_CENT,
        }
    }
}

fn item_count(items: &[CartItem]) -> u32 {
    items.iter().map(|item| item.quantity).sum()
}

#[post("/get-quote")]
pub async fn get_quote(req: web::Json<GetQuoteRequest>) -> impl Responder {
    let count = item_count(&req.items);

    let quote = match create_quote_from_count(count).await {
        Ok(quote) => quote,
        Err(err) => {
            log::error!("Failed to get quote: {:#}", err);
            return HttpResponse::InternalServerError().body(format!("Failed to get quote: {:#}", err));
        }
    };

    info!(
        name = "SendingQuoteValue",
        quote.dollars = quote.dollars,
        quote.cents = quote.cents,
        message = "Sending Quote"
    );

    HttpResponse::Ok().json(serde_json::json!({ "cost_usd": Money::from(quote) }))
}

#[post("/ship-order")]
pub async fn ship_order(_req: web::Json<GetQuoteRequest>) -> impl Responder {
    let tracking_id = create_tracking_id();

    get_active_span(|span| {
        span.set_attribute(KeyValue::new("app.shipping.tracking.id", tracking_id.clone()));
    });
    info!(
        name = "CreatingTrackingId",
        tracking_id = tracking_id.as_str(),
        message = "Tracking ID Created"
    );

    HttpResponse::Ok().json(serde_json::json!({ "tracking_id": tracking_id }))
}

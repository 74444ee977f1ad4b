//! Shipping service: quotes and tracking ids over HTTP, traced with OpenTelemetry.

use std::env;

use actix_web::{App, HttpServer};
use log::info;
use opentelemetry::global;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;

mod shipping_service;
use shipping_service::{get_quote, ship_order};

const DEFAULT_PORT: &str = "50051";

fn init_tracer_provider() -> anyhow::Result<SdkTracerProvider> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(
            env::var("OTEL_EXPORTER_OTLP_ENDPOINT")
                .unwrap_or_else(|_| "http://otel-collector:4317".to_string()),
        )
        .build()?;
    let provider = SdkTracerProvider::builder()
        .with_resource(Resource::builder().with_service_name("shipping").build())
        .with_batch_exporter(exporter)
        .build();
    global::set_tracer_provider(provider.clone());
    Ok(provider)
}

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    let provider = init_tracer_provider()?;

    let port = env::var("SHIPPING_PORT").unwrap_or_else(|_| DEFAULT_PORT.to_string());
    let addr = format!("0.0.0.0:{}", port);
    info!(name = "ServerStarted", message = "Shipping service is starting", addr = addr.as_str());

    HttpServer::new(|| App::new().service(get_quote).service(ship_order))
        .bind(&addr)?
        .run()
        .await?;

    provider.shutdown()?;
    Ok(())
}

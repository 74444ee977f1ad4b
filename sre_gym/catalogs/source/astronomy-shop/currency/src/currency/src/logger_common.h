// Log pipeline of the currency service: OTLP/gRPC export behind a batch processor,
// and the `logger` every handler writes through (set up by initLogger in main).
#pragma once

#include "opentelemetry/exporters/otlp/otlp_grpc_log_record_exporter_factory.h"
#include "opentelemetry/logs/provider.h"
#include "opentelemetry/sdk/logs/batch_log_record_processor_factory.h"
#include "opentelemetry/sdk/logs/logger_provider_factory.h"

#include <memory>
#include <utility>

namespace logs_api = opentelemetry::logs;
namespace logs_sdk = opentelemetry::sdk::logs;
namespace otlp = opentelemetry::exporter::otlp;

inline opentelemetry::nostd::shared_ptr<logs_api::Logger> logger;

inline void initLogger()
{
  otlp::OtlpGrpcLogRecordExporterOptions exporter_options;
  auto exporter = otlp::OtlpGrpcLogRecordExporterFactory::Create(exporter_options);

  logs_sdk::BatchLogRecordProcessorOptions batch_options;
  auto processor = logs_sdk::BatchLogRecordProcessorFactory::Create(std::move(exporter), batch_options);

  std::shared_ptr<logs_api::LoggerProvider> provider =
      logs_sdk::LoggerProviderFactory::Create(std::move(processor));
  logs_api::Provider::SetLoggerProvider(provider);

  logger = provider->GetLogger("currency", "currency");
}

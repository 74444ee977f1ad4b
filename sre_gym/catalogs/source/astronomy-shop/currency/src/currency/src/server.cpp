// currency: gRPC service that converts Money between the currencies the shop
// supports. Rates are quoted against the euro (EUR = 1.0), so every conversion
// goes source -> EUR -> target.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_map>

#include <demo.grpc.pb.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/server_context.h>

#include "logger_common.h"
#include "meter_common.h"
#include "tracer_common.h"

using grpc::Server;
using grpc::ServerBuilder;
using grpc::ServerContext;
using grpc::Status;
using oteldemo::CurrencyConversionRequest;
using oteldemo::Empty;
using oteldemo::GetSupportedCurrenciesResponse;
using oteldemo::Money;

namespace
{
constexpr double kNanosPerUnit = 1e9;

// units of each currency that one euro buys
const std::unordered_map<std::string, double> currency_conversion{
    {"EUR", 1.0},
    {"USD", 1.1305},
    {"JPY", 126.40},
    {"BGN", 1.9558},
    {"CZK", 25.592},
    {"DKK", 7.4609},
    {"GBP", 0.85970},
    {"HUF", 315.51},
    {"PLN", 4.2996},
    {"RON", 4.7463},
    {"SEK", 10.5375},
    {"CHF", 1.1360},
    {"ISK", 136.80},
    {"NOK", 9.8040},
    {"HRK", 7.4210},
    {"RUB", 74.4208},
    {"TRY", 6.1247},
    {"AUD", 1.6072},
    {"BRL", 4.2682},
    {"CAD", 1.5128},
    {"CNY", 7.5857},
    {"HKD", 8.8743},
    {"IDR", 15999.40},
    {"ILS", 4.0875},
    {"INR", 79.4320},
    {"KRW", 1275.05},
    {"MXN", 21.7999},
    {"MYR", 4.6289},
    {"NZD", 1.6679},
    {"PHP", 59.083},
    {"SGD", 1.5349},
    {"THB", 36.012},
    {"ZAR", 16.0583},
};

// Money keeps whole units and nanos separately; both carry the same sign.
double MoneyToDouble(const Money& money)
{
  return static_cast<double>(money.units()) + static_cast<double>(money.nanos()) / kNanosPerUnit;
}

void DoubleToMoney(double value, Money* money)
{
  double whole = 0.0;
  const double fraction = std::modf(value, &whole);
  money->set_units(static_cast<int64_t>(whole));
  money->set_nanos(static_cast<int32_t>(std::llround(fraction * kNanosPerUnit)));
}

class CurrencyService final : public oteldemo::CurrencyService::Service
{
public:
  Status GetSupportedCurrencies(ServerContext* /*context*/, const Empty* /*request*/,
                                GetSupportedCurrenciesResponse* response) override
  {
    for (const auto& [code, rate] : currency_conversion)
    {
      response->add_currency_codes(code);
    }
    logger->Info("Listed " + std::to_string(response->currency_codes_size()) + " supported currencies");
    return Status::OK;
  }

  Status Convert(ServerContext* /*context*/, const CurrencyConversionRequest* request,
                 Money* response) override
  {
    const Money& from = request->from();
    const std::string& from_code = from.currency_code();
    const std::string& to_code = request->to_code();

    const auto from_rate = currency_conversion.find(from_code);
    const auto to_rate = currency_conversion.find(to_code);
    if (from_rate == currency_conversion.end() || to_rate == currency_conversion.end())
    {
      logger->Error("Conversion failed: unsupported currency in " + from_code + " -> " + to_code);
      return Status(grpc::StatusCode::INVALID_ARGUMENT, "unsupported currency code");
    }

    const double in_euros = MoneyToDouble(from) / from_rate->second;
    DoubleToMoney(in_euros * to_rate->second, response);
    response->set_currency_code(to_code);

    logger->Info("Conversion successful. Converted " + from_code + " to " + to_code);
    return Status::OK;
  }
};

void RunServer(uint16_t port)
{
  const std::string address = "0.0.0.0:" + std::to_string(port);

  CurrencyService service;
  ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);

  std::unique_ptr<Server> server = builder.BuildAndStart();
  if (!server)
  {
    std::cerr << "currency: could not listen on " << address << std::endl;
    std::exit(1);
  }
  logger->Info("Currency Server listening on port: " + address);
  server->Wait();
}
}  // namespace

int main(int argc, char** argv)
{
  if (argc < 2)
  {
    std::cerr << "usage: currency <port>" << std::endl;
    return 1;
  }
  const auto port = static_cast<uint16_t>(std::strtoul(argv[1], nullptr, 10));

  initTracer();
  initMeter();
  initLogger();

  RunServer(port);
  return 0;
}

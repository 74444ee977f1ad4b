# email: renders order confirmations for checkout and hands them to Pony.
# Delivery uses Pony's :test transport, so nothing leaves the pod.

require "json"
require "ostruct"
require "pony"
require "sinatra"

require "open_feature/sdk"
require "openfeature/flagd/provider"

set :port, ENV["EMAIL_PORT"]

OpenFeature::SDK.configure do |config|
  config.set_provider(OpenFeature::Flagd::Provider.build_client)
end

SENDER_ADDRESS = "noreply@example.com"
CONFIRMATION_SUBJECT = "Your confirmation email"

post "/send_order_confirmation" do
  payload = JSON.parse(request.body.read, object_class: OpenStruct)

  # the request span comes from the sinatra auto-instrumentation
  OpenTelemetry::Trace.current_span.set_attribute("app.order.id", payload.order.order_id)

  send_email(payload)
  status 200
end

error do
  OpenTelemetry::Trace.current_span.record_exception(env["sinatra.error"])
end

# The emailMemoryLeak flag is a multiplier: at N the mail body is padded to N
# times its size, which makes the service hold far more memory per request.
def leak_padding(body)
  flags = OpenFeature::SDK.build_client
  factor = flags.fetch_number_value(flag_key: "emailMemoryLeak", default_value: 0).to_i
  " " * [body.length * (factor - 1), 0].max
end

def send_email(data)
  tracer = OpenTelemetry.tracer_provider.tracer("email")
  tracer.in_span("send_email") do |span|
    body = erb(:confirmation, locals: { order: data.order })

    Pony.mail(
      to: data.email,
      from: SENDER_ADDRESS,
      subject: CONFIRMATION_SUBJECT,
      body: body + leak_padding(body),
      via: :test
    )

    span.set_attribute("app.email.recipient", data.email)
    puts "Order confirmation email sent to: #{data.email}"
  end
end

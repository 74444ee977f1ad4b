require "json"
require "rack/test"
require "rspec"
require_relative "../email_server"

RSpec.describe "POST /send_order_confirmation" do
  include Rack::Test::Methods

  def app
    Sinatra::Application
  end

  let(:payload) do
    {
      email: "stargazer@example.com",
      order: {
        order_id: "0c8b5a1e-7d2f-11ef-9c1a-0242ac120002",
        shipping_tracking_id: "TRK-42",
        shipping_cost: { currency_code: "USD", units: 8, nanos: 990_000_000 },
        shipping_address: { street_address: "1600 Amphitheatre Pkwy", city: "Mountain View", country: "US", zip_code: "94043" },
        items: [
          { item: { product_id: "66VCHSJNUP", quantity: 2 }, cost: { currency_code: "USD", units: 349, nanos: 950_000_000 } },
        ],
      },
    }
  end

  before { Mail::TestMailer.deliveries.clear }

  it "answers 200 and delivers one mail to the customer" do
    post "/send_order_confirmation", JSON.generate(payload), "CONTENT_TYPE" => "application/json"

    expect(last_response.status).to eq(200)
    expect(Mail::TestMailer.deliveries.size).to eq(1)
    expect(Mail::TestMailer.deliveries.first.to).to eq(["stargazer@example.com"])
  end

  it "lists every ordered product in the body" do
    post "/send_order_confirmation", JSON.generate(payload), "CONTENT_TYPE" => "application/json"

    body = Mail::TestMailer.deliveries.first.body.to_s
    expect(body).to include("66VCHSJNUP")
    expect(body).to include("349.95 USD")
  end
end

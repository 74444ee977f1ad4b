# Copyright The OpenTelemetry Authors
# SPDX-License-Identifier: Apache-2.0

require "rack/test"
require "rspec"
require_relative "../email_server"

RSpec.describe "email server" do
  include Rack::Test::Methods

  def app
    Sinatra::Application
  end

  let(:order) do
    {
      email: "someone@example.com",
      order: {
        order_id: "505",
        shipping_tracking_id: "tracking-1",
        shipping_cost: { units: 10, nanos: 0, currency_code: "USD" },
        shipping_address: { street_address: "1 Main St", city: "Seattle", country: "US", zip_code: "98101" },
        items: [{ item: { product_id: "OLJCESPC7Z", quantity: 1 }, cost: { units: 101, nanos: 960000000, currency_code: "USD" } }],
      },
    }
  end

  it "accepts order confirmations" do
    post "/send_order_confirmation", order.to_json
    expect(last_response.status).to eq(200)
  end
end

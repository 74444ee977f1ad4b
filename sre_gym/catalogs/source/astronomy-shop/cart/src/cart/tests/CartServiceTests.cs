// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0
using System;
using System.Threading.Tasks;
using Grpc.Net.Client;
using Oteldemo;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.TestHost;
using Microsoft.Extensions.Hosting;
using Xunit;
using static Oteldemo.CartService;

namespace cart.tests;

public class CartServiceTests
{
    private readonly IHostBuilder _host;

    public CartServiceTests()
    {
        _host = new HostBuilder().ConfigureWebHost(webBuilder =>
        {
            webBuilder
                .UseStartup<Startup>()
                .UseTestServer();
        });
    }

    [Fact]
    public async Task GetItem_NoAddItemBefore_EmptyCartReturned()
    {
        var userId = Guid.NewGuid().ToString();
        using var server = await _host.StartAsync();
        var httpClient = server.GetTestClient();
        var channel = GrpcChannel.ForAddress(httpClient.BaseAddress, new GrpcChannelOptions { HttpClient = httpClient });
        var client = new CartServiceClient(channel);

        var cart = await client.GetCartAsync(new GetCartRequest { UserId = userId });
        Assert.Empty(cart.Items);
    }

    [Fact]
    public async Task AddItem_ItemExists_QuantityUpdated()
    {
        var userId = Guid.NewGuid().ToString();
        using var server = await _host.StartAsync();
        var httpClient = server.GetTestClient();
        var channel = GrpcChannel.ForAddress(httpClient.BaseAddress, new GrpcChannelOptions { HttpClient = httpClient });
        var client = new CartServiceClient(channel);

        var request = new AddItemRequest { UserId = userId, Item = new CartItem { ProductId = "1", Quantity = 1 } };
        await client.AddItemAsync(request);
        await client.AddItemAsync(request);
        var cart = await client.GetCartAsync(new GetCartRequest { UserId = userId });
        Assert.Single(cart.Items);
        Assert.Equal(2, cart.Items[0].Quantity);
    }
}

// In-memory end-to-end tests of the cart gRPC API (test server, no network).
using System;
using System.Threading.Tasks;
using Grpc.Net.Client;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.TestHost;
using Microsoft.Extensions.Hosting;
using Oteldemo;
using Xunit;
using static Oteldemo.CartService;

namespace cart.tests;

public class CartServiceTests : IAsyncLifetime
{
    private IHost _server = null!;
    private CartServiceClient _client = null!;

    public async Task InitializeAsync()
    {
        _server = await new HostBuilder()
            .ConfigureWebHost(web => web.UseStartup<Startup>().UseTestServer())
            .StartAsync();

        var http = _server.GetTestClient();
        var channel = GrpcChannel.ForAddress(http.BaseAddress!, new GrpcChannelOptions { HttpClient = http });
        _client = new CartServiceClient(channel);
    }

    public async Task DisposeAsync()
    {
        await _server.StopAsync();
        _server.Dispose();
    }

    private static string NewUser() => Guid.NewGuid().ToString("N");

    [Fact]
    public async Task GetItem_NoAddItemBefore_EmptyCartReturned()
    {
        var cart = await _client.GetCartAsync(new GetCartRequest { UserId = NewUser() });

        Assert.Empty(cart.Items);
    }

    [Fact]
    public async Task AddItem_ItemExists_QuantityUpdated()
    {
        var user = NewUser();
        var add = new AddItemRequest { UserId = user, Item = new CartItem { ProductId = "OLJCESPC7Z", Quantity = 1 } };

        await _client.AddItemAsync(add);
        await _client.AddItemAsync(add);
        var cart = await _client.GetCartAsync(new GetCartRequest { UserId = user });

        var only = Assert.Single(cart.Items);
        Assert.Equal(2, only.Quantity);
    }

    [Fact]
    public async Task EmptyCart_ReturnsEmpty()
    {
        var user = NewUser();
        await _client.AddItemAsync(new AddItemRequest { UserId = user, Item = new CartItem { ProductId = "66VCHSJNUP", Quantity = 3 } });

        await _client.EmptyCartAsync(new EmptyCartRequest { UserId = user });
        var cart = await _client.GetCartAsync(new GetCartRequest { UserId = user });

        Assert.Empty(cart.Items);
    }
}

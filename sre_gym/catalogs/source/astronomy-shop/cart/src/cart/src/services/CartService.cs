// gRPC front of the cart: traces each call and delegates to the configured store.
using System;
using System.Diagnostics;
using System.Linq;
using System.Threading.Tasks;
using cart.cartstore;
using Grpc.Core;
using OpenFeature;
using OpenTelemetry.Trace;
using Oteldemo;

namespace cart.services;

public class CartService : Oteldemo.CartService.CartServiceBase
{
    private static readonly Empty Empty = new();

    private readonly ICartStore _cartStore;
    private readonly ICartStore _badCartStore;
    private readonly IFeatureClient _featureFlagHelper;
    private readonly Random _random = new();

    public CartService(ICartStore cartStore, ICartStore badCartStore, IFeatureClient featureFlagService)
    {
        _cartStore = cartStore;
        _badCartStore = badCartStore;
        _featureFlagHelper = featureFlagService;
    }

    public override async Task<Empty> AddItem(AddItemRequest request, ServerCallContext context)
    {
        var activity = Activity.Current;
        activity?.SetTag("app.user.id", request.UserId);
        activity?.SetTag("app.product.id", request.Item.ProductId);
        activity?.SetTag("app.product.quantity", request.Item.Quantity);

        return await Traced(activity, async () =>
        {
            await _cartStore.AddItemAsync(request.UserId, request.Item.ProductId, request.Item.Quantity);
            return Empty;
        });
    }

    public override async Task<Cart> GetCart(GetCartRequest request, ServerCallContext context)
    {
        var activity = Activity.Current;
        activity?.SetTag("app.user.id", request.UserId);
        activity?.AddEvent(new ActivityEvent("Fetch cart"));

        var cart = await Traced(activity, () => _cartStore.GetCartAsync(request.UserId));
        activity?.SetTag("app.cart.items.count", cart.Items.Sum(item => item.Quantity));
        return cart;
    }

    public override async Task<Empty> EmptyCart(EmptyCartRequest request, ServerCallContext context)
    {
        var activity = Activity.Current;
        activity?.SetTag("app.user.id", request.UserId);
        activity?.AddEvent(new ActivityEvent("Empty cart"));

        // cartFailure is a probability: that share of requests goes to the broken store
        var failureRate = await _featureFlagHelper.GetDoubleValueAsync("cartFailure", 0.0);
        var store = _random.NextDouble() < failureRate ? _badCartStore : _cartStore;

        return await Traced(activity, async () =>
        {
            await store.EmptyCartAsync(request.UserId);
            return Empty;
        });
    }

    // records a failed store call on the span before letting the RpcException propagate
    private static async Task<T> Traced<T>(Activity? activity, Func<Task<T>> call)
    {
        try
        {
            return await call();
        }
        catch (RpcException ex)
        {
            activity?.AddException(ex);
            activity?.SetStatus(ActivityStatusCode.Error, ex.Message);
            throw;
        }
    }
}

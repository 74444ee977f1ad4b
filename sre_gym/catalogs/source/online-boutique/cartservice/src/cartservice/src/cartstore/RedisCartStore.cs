using System;
using System.Linq;
using System.Threading.Tasks;
using Google.Protobuf;
using Grpc.Core;
using Hipstershop;
using Microsoft.Extensions.Caching.Distributed;

namespace cartservice.cartstore
{
    /// <summary>
    /// Cart store on top of IDistributedCache: one entry per user id holding the serialized
    /// Hipstershop.Cart message. Backed by redis in the cluster and by a memory cache locally.
    /// </summary>
    public class RedisCartStore : ICartStore
    {
        private readonly IDistributedCache _cache;

        public RedisCartStore(IDistributedCache cache)
        {
            _cache = cache ?? throw new ArgumentNullException(nameof(cache));
        }

        public async Task AddItemAsync(string userId, string productId, int quantity)
        {
            Console.WriteLine($"AddItemAsync called with userId={userId}, productId={productId}, quantity={quantity}");
            try
            {
                var value = await _cache.GetAsync(userId);
                if (value is null)
                {
                    // first item for this user: start a fresh cart
                    var fresh = new Cart { UserId = userId };
                    fresh.Items.Add(new CartItem { ProductId = productId, Quantity = quantity });
                    await _cache.SetAsync(userId, fresh.ToByteArray());
                    return;
                }

                var cart = Cart.Parser.ParseFrom(value);
                var line = cart.Items.FirstOrDefault(item => item.ProductId == productId);
                if (line is null)
                {
                    cart.Items.Add(new CartItem { ProductId = productId, Quantity = quantity });
                }
                else
                {
                    line.Quantity += quantity;
                }
                await _cache.SetAsync(userId, cart.ToByteArray());
            }
            catch (Exception ex)
            {
                throw StorageUnavailable(ex);
            }
        }

        public async Task EmptyCartAsync(string userId)
        {
            Console.WriteLine($"EmptyCartAsync called with userId={userId}");
            try
            {
                // a missing entry reads back as an empty cart
                await _cache.RemoveAsync(userId);
            }
            catch (Exception ex)
            {
                throw StorageUnavailable(ex);
            }
        }

        public async Task<Cart> GetCartAsync(string userId)
        {
            Console.WriteLine($"GetCartAsync called with userId={userId}");
            try
            {
                var value = await _cache.GetAsync(userId);
                if (value is null)
                {
                    // users who never added anything have an empty cart, not an error
                    return new Cart();
                }
                return Cart.Parser.ParseFrom(value);
            }
            catch (Exception ex)
            {
                throw StorageUnavailable(ex);
            }
        }

        public bool Ping()
        {
            // the cache client reconnects by itself; there is nothing cheaper to probe here
            return _cache != null;
        }

        private static RpcException StorageUnavailable(Exception cause) =>
            new RpcException(new Status(StatusCode.FailedPrecondition, $"Can't access cart storage. {cause}"));
    }
}

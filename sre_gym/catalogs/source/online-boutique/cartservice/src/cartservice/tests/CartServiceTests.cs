using System;
using System.Threading.Tasks;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Caching.Memory;
using Microsoft.Extensions.Options;
using cartservice.cartstore;
using Xunit;

namespace cartservice.tests
{
    public class CartServiceTests
    {
        private readonly RedisCartStore _store =
            new RedisCartStore(new MemoryDistributedCache(Options.Create(new MemoryDistributedCacheOptions())));

        private static string NewUser() => Guid.NewGuid().ToString("N");

        [Fact]
        public async Task GetCart_UnknownUser_ReturnsEmptyCart()
        {
            var cart = await _store.GetCartAsync(NewUser());

            Assert.NotNull(cart);
            Assert.Empty(cart.Items);
        }

        [Fact]
        public async Task AddItem_FirstItem_KeepsRequestedQuantity()
        {
            var user = NewUser();
            await _store.AddItemAsync(user, "OLJCESPC7Z", 4);

            var cart = await _store.GetCartAsync(user);

            var item = Assert.Single(cart.Items);
            Assert.Equal("OLJCESPC7Z", item.ProductId);
            Assert.Equal(4, item.Quantity);
        }

        [Fact]
        public async Task AddItem_SameProductTwice_SumsQuantities()
        {
            var user = NewUser();
            await _store.AddItemAsync(user, "66VCHSJNUP", 1);
            await _store.AddItemAsync(user, "66VCHSJNUP", 2);

            var cart = await _store.GetCartAsync(user);

            Assert.Equal(3, Assert.Single(cart.Items).Quantity);
        }

        [Fact]
        public async Task AddItem_OtherProduct_AddsLine()
        {
            var user = NewUser();
            await _store.AddItemAsync(user, "66VCHSJNUP", 1);
            await _store.AddItemAsync(user, "1YMWWN1N4O", 1);

            var cart = await _store.GetCartAsync(user);

            Assert.Equal(2, cart.Items.Count);
        }

        [Fact]
        public async Task EmptyCart_RemovesAllItems()
        {
            var user = NewUser();
            await _store.AddItemAsync(user, "L9ECAV7KIM", 2);
            await _store.EmptyCartAsync(user);

            var cart = await _store.GetCartAsync(user);

            Assert.Empty(cart.Items);
        }
    }
}

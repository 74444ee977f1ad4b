// Copyright 2018 Google LLC
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

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
        private static RedisCartStore NewStore()
        {
            var cache = new MemoryDistributedCache(Options.Create(new MemoryDistributedCacheOptions()));
            return new RedisCartStore(cache);
        }

        [Fact]
        public async Task GetCart_NoAddItemBefore_EmptyCartReturned()
        {
            var store = NewStore();
            var cart = await store.GetCartAsync(Guid.NewGuid().ToString());
            Assert.NotNull(cart);
            Assert.Empty(cart.Items);
        }

        [Fact]
        public async Task AddItem_ItemExists_Updated()
        {
            var store = NewStore();
            string userId = Guid.NewGuid().ToString();
            await store.AddItemAsync(userId, "1", 1);
            await store.AddItemAsync(userId, "1", 2);
            var cart = await store.GetCartAsync(userId);
            Assert.Single(cart.Items);
            Assert.Equal(3, cart.Items[0].Quantity);
        }

        [Fact]
        public async Task AddItem_New_Inserted()
        {
            var store = NewStore();
            string userId = Guid.NewGuid().ToString();
            await store.AddItemAsync(userId, "1", 1);
            await store.AddItemAsync(userId, "2", 1);
            var cart = await store.GetCartAsync(userId);
            Assert.Equal(2, cart.Items.Count);
        }

        [Fact]
        public async Task EmptyCart_ItemsExisted_Emptied()
        {
            var store = NewStore();
            string userId = Guid.NewGuid().ToString();
            await store.AddItemAsync(userId, "1", 1);
            await store.EmptyCartAsync(userId);
            var cart = await store.GetCartAsync(userId);
            Assert.Empty(cart.Items);
        }
    }
}

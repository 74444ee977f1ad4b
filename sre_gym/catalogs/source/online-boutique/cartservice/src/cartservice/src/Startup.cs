using System;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using StackExchange.Redis;
using cartservice.cartstore;
using cartservice.services;

namespace cartservice
{
    /// <summary>
    /// Picks the cart store from the environment (redis, Spanner, AlloyDB or an in-process cache)
    /// and exposes the cart and health gRPC services.
    /// </summary>
    public class Startup
    {
        // applies to both connecting and single redis operations
        private const int RedisTimeoutMs = 5000;

        public Startup(IConfiguration configuration)
        {
            Configuration = configuration;
        }

        public IConfiguration Configuration { get; }

        public void ConfigureServices(IServiceCollection services)
        {
            var redisAddress = Configuration["REDIS_ADDR"];
            var spannerProject = Configuration["SPANNER_PROJECT"];
            var spannerConnection = Configuration["SPANNER_CONNECTION_STRING"];
            var alloyDbAddress = Configuration["ALLOYDB_PRIMARY_IP"];

            if (HasValue(redisAddress))
            {
                Console.WriteLine($"Cart store: redis at {redisAddress}");
                services.AddStackExchangeRedisCache(cache => cache.ConfigurationOptions = RedisOptions(redisAddress));
                services.AddSingleton<ICartStore, RedisCartStore>();
            }
            else if (HasValue(spannerProject) || HasValue(spannerConnection))
            {
                Console.WriteLine("Cart store: Cloud Spanner");
                services.AddSingleton<ICartStore, SpannerCartStore>();
            }
            else if (HasValue(alloyDbAddress))
            {
                Console.WriteLine("Cart store: AlloyDB");
                services.AddSingleton<ICartStore, AlloyDBCartStore>();
            }
            else
            {
                // Local runs without any backing store keep carts in process memory.
                Console.WriteLine("REDIS_ADDR is not set, carts are kept in memory and lost on restart");
                services.AddDistributedMemoryCache();
                services.AddSingleton<ICartStore, RedisCartStore>();
            }

            services.AddGrpc();
        }

        public void Configure(IApplicationBuilder app, IWebHostEnvironment env)
        {
            if (env.IsDevelopment())
            {
                app.UseDeveloperExceptionPage();
            }

            app.UseRouting();
            app.UseEndpoints(endpoints =>
            {
                endpoints.MapGrpcService<CartService>();
                endpoints.MapGrpcService<HealthCheckService>();
                endpoints.MapGet("/", context =>
                    context.Response.WriteAsync("cartservice only serves gRPC; call it with a gRPC client."));
            });
        }

        private static ConfigurationOptions RedisOptions(string address)
        {
            var options = ConfigurationOptions.Parse(address);
            // redis-cart may start after us: keep retrying in the background instead of failing startup
            options.AbortOnConnectFail = false;
            options.ConnectTimeout = RedisTimeoutMs;
            options.SyncTimeout = RedisTimeoutMs;
            return options;
        }

        private static bool HasValue(string setting) => !string.IsNullOrWhiteSpace(setting);
    }
}

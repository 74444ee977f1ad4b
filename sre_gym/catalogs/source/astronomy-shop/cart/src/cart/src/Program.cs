// Host of the cart service: the gRPC CartService over Kestrel (HTTP/2), the valkey-backed
// store, OpenFeature with the flagd provider, and OpenTelemetry traces and metrics.
using System;
using cart.cartstore;
using cart.services;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Logging;
using OpenFeature;
using OpenFeature.Contrib.Providers.Flagd;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

var builder = WebApplication.CreateBuilder(args);
var valkeyAddress = builder.Configuration["VALKEY_ADDR"];
if (string.IsNullOrEmpty(valkeyAddress))
{
    Console.WriteLine("VALKEY_ADDR environment variable is required.");
    Environment.Exit(1);
}

builder.Logging.ClearProviders();
builder.Logging.AddConsole();

builder.Services.AddSingleton<ICartStore>(sp =>
{
    var store = new ValkeyCartStore(sp.GetRequiredService<ILogger<ValkeyCartStore>>(), valkeyAddress);
    store.Initialize();
    return store;
});

builder.Services.AddSingleton<IFeatureClient>(_ =>
{
    Api.Instance.SetProviderAsync(new FlagdProvider()).GetAwaiter().GetResult();
    return Api.Instance.GetClient();
});

// the second store points nowhere: cartFailure routes a share of EmptyCart calls to it
builder.Services.AddSingleton(sp => new CartService(
    sp.GetRequiredService<ICartStore>(),
    new ValkeyCartStore(sp.GetRequiredService<ILogger<ValkeyCartStore>>(), "badhost:1234"),
    sp.GetRequiredService<IFeatureClient>()));

builder.Services.AddOpenTelemetry()
    .ConfigureResource(resource => resource.AddService("cart"))
    .WithTracing(tracing => tracing
        .AddRedisInstrumentation()
        .AddAspNetCoreInstrumentation()
        .AddGrpcClientInstrumentation()
        .AddHttpClientInstrumentation()
        .AddOtlpExporter())
    .WithMetrics(metrics => metrics
        .AddRuntimeInstrumentation()
        .AddAspNetCoreInstrumentation()
        .AddHttpClientInstrumentation()
        .AddOtlpExporter());

builder.Services.AddGrpc();
builder.Services.AddGrpcHealthChecks()
    .AddCheck("Sample", () => HealthCheckResult.Healthy());

var app = builder.Build();

app.MapGrpcService<CartService>();
app.MapGrpcHealthChecksService();

app.MapGet("/", async context =>
{
    await context.Response.WriteAsync("Communication with gRPC endpoints must be made through a gRPC client.");
});

app.Run();

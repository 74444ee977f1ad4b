// Kafka consumer of the accounting service: reads placed orders from the
// "orders" topic and books them into the accounting database.

using Confluent.Kafka;
using Microsoft.EntityFrameworkCore;
using Microsoft.Extensions.Logging;
using Oteldemo;
using System.Diagnostics;

namespace Accounting;

internal class DBContext : DbContext
{
    public DbSet<OrderEntity> Orders { get; set; }
    public DbSet<OrderItemEntity> CartItems { get; set; }
    public DbSet<ShippingEntity> Shipping { get; set; }

    protected override void OnConfiguring(DbContextOptionsBuilder options)
    {
        var dsn = Environment.GetEnvironmentVariable("DB_CONNECTION_STRING");
        options
            .UseNpgsql(dsn)
            .UseSnakeCaseNamingConvention();
    }
}

internal class Consumer : IDisposable
{
    private const string TopicName = "orders";
    private const string ConsumerGroup = "accounting";

    private static readonly ActivitySource Tracer = new("Accounting.Consumer");

    private readonly ILogger _log;
    private readonly IConsumer<string, byte[]> _kafka;
    private readonly DBContext? _db;
    private volatile bool _running;

    public Consumer(ILogger<Consumer> logger)
    {
        _log = logger;

        var brokers = Environment.GetEnvironmentVariable("KAFKA_ADDR");
        if (string.IsNullOrWhiteSpace(brokers))
        {
            throw new ArgumentNullException("KAFKA_ADDR", "KAFKA_ADDR must name the Kafka bootstrap servers");
        }

        _kafka = BuildConsumer(brokers);
        _kafka.Subscribe(TopicName);
        _log.LogInformation("Subscribed to {Topic} on {Brokers}", TopicName, brokers);

        // Without a database the service only logs what it receives.
        if (Environment.GetEnvironmentVariable("DB_CONNECTION_STRING") is not null)
        {
            _db = new DBContext();
        }
    }

    public void StartListening()
    {
        _running = true;
        try
        {
            while (_running)
            {
                ConsumeResult<string, byte[]> result;
                try
                {
                    result = _kafka.Consume();
                }
                catch (ConsumeException ce)
                {
                    _log.LogError(ce, "Kafka consume failed: {Reason}", ce.Error.Reason);
                    continue;
                }

                ProcessMessage(result.Message);
            }
        }
        catch (OperationCanceledException)
        {
            _log.LogInformation("Shutdown requested, leaving the consumer group");
            _kafka.Close();
        }
    }

    private void ProcessMessage(Message<string, byte[]> message)
    {
        using var activity = Tracer.StartActivity("order-consumed", ActivityKind.Internal);
        try
        {
            var order = OrderResult.Parser.ParseFrom(message.Value);
            Log.OrderReceivedMessage(_log, order);
            activity?.SetTag("app.order.id", order.OrderId);

            if (_db is null)
            {
                return;
            }

            _db.Add(new OrderEntity { Id = order.OrderId });
            _db.AddRange(order.Items.Select(line => new OrderItemEntity
            {
                OrderId = order.OrderId,
                ProductId = line.Item.ProductId,
                Quantity = line.Item.Quantity,
                ItemCostCurrencyCode = line.Cost.CurrencyCode,
                ItemCostUnits = line.Cost.Units,
                ItemCostNanos = line.Cost.Nanos,
            }));
            _db.Add(ToShipping(order));

            _db.SaveChanges();
        }
        catch (Exception ex)
        {
            activity?.SetStatus(ActivityStatusCode.Error, ex.Message);
            _log.LogError(ex, "Order parsing failed:");
        }
    }

    private static ShippingEntity ToShipping(OrderResult order)
    {
        var address = order.ShippingAddress;
        var cost = order.ShippingCost;
        return new ShippingEntity
        {
            OrderId = order.OrderId,
            ShippingTrackingId = order.ShippingTrackingId,
            ShippingCostCurrencyCode = cost.CurrencyCode,
            ShippingCostUnits = cost.Units,
            ShippingCostNanos = cost.Nanos,
            StreetAddress = address.StreetAddress,
            City = address.City,
            State = address.State,
            Country = address.Country,
            ZipCode = address.ZipCode,
        };
    }

    private static IConsumer<string, byte[]> BuildConsumer(string brokers)
    {
        var settings = new ConsumerConfig
        {
            BootstrapServers = brokers,
            GroupId = ConsumerGroup,
            // start from the oldest retained order when the group has no offsets yet
            AutoOffsetReset = AutoOffsetReset.Earliest,
            EnableAutoCommit = true,
        };

        return new ConsumerBuilder<string, byte[]>(settings).Build();
    }

    public void Dispose()
    {
        _running = false;
        _kafka?.Dispose();
        _db?.Dispose();
    }
}

// Cart storage backed by Valkey (Redis protocol). Each user's cart is one hash
// whose "cart" field holds the serialized Oteldemo.Cart protobuf.
using System;
using System.Linq;
using System.Threading.Tasks;
using Google.Protobuf;
using Grpc.Core;
using Microsoft.Extensions.Logging;
using StackExchange.Redis;

namespace cart.cartstore;

public class ValkeyCartStore : ICartStore
{
    private const string CartFieldName = "cart";
    private const int RedisRetryNumber = 30;
    private static readonly TimeSpan CartTtl = TimeSpan.FromMinutes(60);

    private readonly ILogger _logger;
    private readonly ConfigurationOptions _options;
    private readonly byte[] _emptyCartBytes = new Oteldemo.Cart().ToByteArray();
    private readonly object _connectLock = new();

    private volatile ConnectionMultiplexer _redis;
    private volatile bool _connected;

    public ValkeyCartStore(ILogger<ValkeyCartStore> logger, string valkeyAddress)
    {
        _logger = logger;

        _options = ConfigurationOptions.Parse($"{valkeyAddress},ssl=false,allowAdmin=true,abortConnect=false");
        // keep retrying while valkey starts up; back off exponentially from one second
        _options.ConnectRetry = RedisRetryNumber;
        _options.ReconnectRetryPolicy = new ExponentialRetry(1000);
        _options.KeepAlive = 180;
    }

    public void Initialize() => EnsureRedisConnected();

    public ConnectionMultiplexer GetConnection()
    {
        EnsureRedisConnected();
        return _redis;
    }

    private void EnsureRedisConnected()
    {
        if (_connected)
        {
            return;
        }

        lock (_connectLock)
        {
            if (_connected)
            {
                return;
            }

            _logger.LogDebug("Connecting to valkey at {Endpoints}", _options.ToString(includePassword: false));
            var redis = ConnectionMultiplexer.Connect(_options);
            if (redis is null || !redis.IsConnected)
            {
                _logger.LogError("Could not connect to valkey after {Retries} attempts", RedisRetryNumber);
                throw new ApplicationException("Wasn't able to connect to redis");
            }

            // a round trip proves the connection is usable before we hand it out
            var probe = redis.GetDatabase();
            probe.StringSet(CartFieldName, "OK");
            _logger.LogDebug("Valkey round trip returned {Value}", (string?)probe.StringGet(CartFieldName));

            redis.ConnectionFailed += (_, args) =>
            {
                _connected = false;
                _logger.LogWarning("Valkey connection lost: {FailureType}", args.FailureType);
            };
            redis.ConnectionRestored += (_, _) =>
            {
                _connected = true;
                _logger.LogInformation("Valkey connection restored");
            };
            redis.InternalError += (_, args) => _logger.LogError(args.Exception, "Valkey internal error");

            _redis = redis;
            _connected = true;
            _logger.LogInformation("Connected to valkey");
        }
    }

    private IDatabase Database()
    {
        EnsureRedisConnected();
        return _redis.GetDatabase();
    }

    private static RpcException StorageUnavailable(Exception inner) =>
        new(new Status(StatusCode.FailedPrecondition, $"Can't access cart storage. {inner}"));

    private static async Task SaveAsync(IDatabase db, string userId, byte[] payload)
    {
        await db.HashSetAsync(userId, new[] { new HashEntry(CartFieldName, payload) });
        await db.KeyExpireAsync(userId, CartTtl);
    }

    public async Task AddItemAsync(string userId, string productId, int quantity)
    {
        _logger.LogInformation("AddItemAsync called with userId={userId}, productId={productId}, quantity={quantity}",
            userId, productId, quantity);
        try
        {
            var db = Database();
            var stored = await db.HashGetAsync(userId, CartFieldName);
            var cart = stored.IsNull
                ? new Oteldemo.Cart { UserId = userId }
                : Oteldemo.Cart.Parser.ParseFrom(stored);

            var line = cart.Items.FirstOrDefault(item => item.ProductId == productId);
            if (line is null)
            {
                cart.Items.Add(new Oteldemo.CartItem { ProductId = productId, Quantity = quantity });
            }
            else
            {
                line.Quantity += quantity;
            }

            await SaveAsync(db, userId, cart.ToByteArray());
        }
        catch (Exception ex) when (ex is not RpcException)
        {
            throw StorageUnavailable(ex);
        }
    }

    public async Task EmptyCartAsync(string userId)
    {
        _logger.LogInformation("EmptyCartAsync called with userId={userId}", userId);
        try
        {
            await SaveAsync(Database(), userId, _emptyCartBytes);
        }
        catch (Exception ex) when (ex is not RpcException)
        {
            throw StorageUnavailable(ex);
        }
    }

    public async Task<Oteldemo.Cart> GetCartAsync(string userId)
    {
        _logger.LogInformation("GetCartAsync called with userId={userId}", userId);
        try
        {
            var value = await Database().HashGetAsync(userId, CartFieldName);
            if (value.IsNull)
            {
                // unknown users simply have an empty cart
                return new Oteldemo.Cart();
            }

            return Oteldemo.Cart.Parser.ParseFrom(value);
        }
        catch (Exception ex) when (ex is not RpcException)
        {
            throw StorageUnavailable(ex);
        }
    }

    public bool Ping()
    {
        try
        {
            return _redis?.GetDatabase().Ping() > TimeSpan.Zero;
        }
        catch (RedisException)
        {
            return false;
        }
    }
}

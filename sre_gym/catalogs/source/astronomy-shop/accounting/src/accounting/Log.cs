// Source-generated log messages of the accounting service; LoggerMessage keeps
// the per-order logging free of boxing and format parsing.

using Microsoft.Extensions.Logging;
using Oteldemo;

namespace Accounting;

internal static partial class Log
{
    [LoggerMessage(
        Level = LogLevel.Information,
        Message = "Order details: {@OrderResult}.")]
    public static partial void OrderReceivedMessage(ILogger logger, OrderResult orderResult);
}

<?php
// Routes of the quote service. The shipping service calls POST /getquote with
// {"numberOfItems": n} and gets the quote back as a bare JSON number (USD).

declare(strict_types=1);

use OpenTelemetry\API\Globals;
use OpenTelemetry\API\Metrics\CounterInterface;
use OpenTelemetry\API\Trace\Span;
use OpenTelemetry\API\Trace\SpanKind;
use Psr\Http\Message\ResponseInterface as Response;
use Psr\Http\Message\ServerRequestInterface as Request;
use Psr\Log\LoggerInterface;
use Slim\App;

function quotesCounter(): CounterInterface
{
    static $counter = null;

    return $counter ??= Globals::meterProvider()
        ->getMeter('quotes')
        ->createCounter('quotes', 'quotes', 'number of quotes calculated');
}

function itemCount(array $body): int
{
    if (!isset($body['numberOfItems'])) {
        throw new \InvalidArgumentException('numberOfItems not provided');
    }

    return (int) $body['numberOfItems'];
}

/**
 * Quote for a shipment: every item costs between 40.0 and 100.0 (drawn once per quote),
 * rounded to cents. A request without numberOfItems is recorded on the span and quoted 0.0.
 */
function calculateQuote($jsonObject): float
{
    $span = Globals::tracerProvider()
        ->getTracer('manual-instrumentation')
        ->spanBuilder('calculate-quote')
        ->setSpanKind(SpanKind::KIND_INTERNAL)
        ->startSpan();
    $span->addEvent('Calculating quote');

    $quote = 0.0;
    try {
        $items = itemCount((array) $jsonObject);
        $costPerItem = random_int(400, 1000) / 10;
        $quote = round($items * $costPerItem, 2);

        $span->setAttribute('app.quote.items.count', $items);
        $span->setAttribute('app.quote.cost.total', $quote);
        $span->addEvent('Quote calculated, returning its value');

        quotesCounter()->add(1, ['number_of_items' => $items]);
    } catch (\InvalidArgumentException $e) {
        $span->recordException($e);
    } finally {
        $span->end();
    }

    return $quote;
}

return function (App $app) {
    $app->post('/getquote', function (Request $request, Response $response, LoggerInterface $logger) {
        $span = Span::getCurrent();
        $span->addEvent('Received get quote request, processing it');

        $body = (array) ($request->getParsedBody() ?? []);
        $total = calculateQuote($body);

        $response->getBody()->write(json_encode($total));
        $span->addEvent('Quote processed, response sent back', ['app.quote.cost.total' => $total]);

        // shipped to the collector as an OpenTelemetry log record (monolog handler)
        $logger->info('Calculated quote', [
            'total' => $total,
        ]);

        return $response->withHeader('Content-Type', 'application/json');
    });
};

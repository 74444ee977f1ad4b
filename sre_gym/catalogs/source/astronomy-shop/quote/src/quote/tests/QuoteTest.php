<?php

declare(strict_types=1);

use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/../app/routes.php';

final class QuoteTest extends TestCase
{
    public function testQuoteScalesWithItems(): void
    {
        foreach ([1, 3, 10] as $items) {
            $quote = calculateQuote(['numberOfItems' => $items]);
            $this->assertGreaterThanOrEqual(40.0 * $items, $quote);
            $this->assertLessThanOrEqual(100.0 * $items, $quote);
        }
    }

    public function testQuoteIsRoundedToCents(): void
    {
        $quote = calculateQuote(['numberOfItems' => 7]);
        $this->assertEqualsWithDelta(round($quote, 2), $quote, 1e-9);
    }

    public function testNumericStringsAreAccepted(): void
    {
        $this->assertGreaterThan(0.0, calculateQuote(['numberOfItems' => '2']));
    }

    public function testMissingItemsGivesZero(): void
    {
        $this->assertSame(0.0, calculateQuote([]));
        $this->assertSame(0.0, calculateQuote(['items' => 4]));
    }
}

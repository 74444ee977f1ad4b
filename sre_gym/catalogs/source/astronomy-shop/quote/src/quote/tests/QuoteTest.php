<?php
// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

declare(strict_types=1);

use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/../app/routes.php';

final class QuoteTest extends TestCase
{
    public function testQuoteScalesWithItems(): void
    {
        $quote = calculateQuote(['numberOfItems' => 3]);
        $this->assertGreaterThanOrEqual(120.0, $quote);
        $this->assertLessThanOrEqual(300.0, $quote);
    }

    public function testMissingItemsGivesZero(): void
    {
        $this->assertSame(0.0, calculateQuote([]));
    }
}

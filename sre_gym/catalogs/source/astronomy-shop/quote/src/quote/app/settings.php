<?php
// Settings of the quote service, read once at start-up from the container environment.

declare(strict_types=1);

use DI\ContainerBuilder;
use Monolog\Level;

return function (ContainerBuilder $containerBuilder) {
    $containerBuilder->addDefinitions([
        'settings' => [
            'displayErrorDetails' => false,
            'logError' => true,
            'logErrorDetails' => true,
            'logger' => [
                'name' => getenv('OTEL_SERVICE_NAME') ?: 'quote',
                'level' => Level::Info,
            ],
        ],
    ]);
};

<?php
// Container definitions: the PSR-3 logger handed to the routes. Records go to stderr and,
// through the OpenTelemetry monolog handler, to the collector as log records.

declare(strict_types=1);

use DI\ContainerBuilder;
use Monolog\Formatter\JsonFormatter;
use Monolog\Handler\StreamHandler;
use Monolog\Logger;
use OpenTelemetry\API\Globals;
use OpenTelemetry\Contrib\Logs\Monolog\Handler as OtelHandler;
use Psr\Container\ContainerInterface;
use Psr\Log\LoggerInterface;

return function (ContainerBuilder $containerBuilder) {
    $containerBuilder->addDefinitions([
        LoggerInterface::class => function (ContainerInterface $c) {
            $settings = $c->get('settings')['logger'];

            $stderr = new StreamHandler('php://stderr', $settings['level']);
            $stderr->setFormatter(new JsonFormatter());

            $logger = new Logger($settings['name']);
            $logger->pushHandler($stderr);
            $logger->pushHandler(new OtelHandler(Globals::loggerProvider(), $settings['level']));

            return $logger;
        },
    ]);
};

package main

import (
	"log/slog"
	"os"

	"go.opentelemetry.io/contrib/bridges/otelslog"
)

// logger writes through the OpenTelemetry log bridge, so records reach the collector with the
// trace context of the request that produced them.
var logger = otelslog.NewLogger("product-catalog")

// fallbackLogger is used before the logger provider is installed (start-up errors).
var fallbackLogger = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

// logStartup records the settings the catalog started with; the DSN is never logged.
func logStartup(port string) {
	logger.Info("product catalog starting",
		slog.String("port", port),
		slog.Int("db.max_open_conns", maxOpenConns),
		slog.Int("db.max_idle_conns", maxIdleConns),
	)
}

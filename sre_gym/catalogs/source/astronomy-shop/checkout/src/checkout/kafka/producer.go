// Package kafka builds the Sarama producer that checkout uses to publish every
// placed order on the orders topic (consumed by accounting and fraud-detection).
package kafka

import (
	"log/slog"

	"github.com/IBM/sarama"
)

// Topic is the topic placed orders are published on.
const Topic = "orders"

// ProtocolVersion is the Kafka protocol version the producer speaks.
var ProtocolVersion = sarama.V3_0_0_0

// CreateKafkaProducer connects an async producer to brokers. Successes and
// errors are both returned on their channels, so the caller must drain them.
func CreateKafkaProducer(brokers []string, logger *slog.Logger) (sarama.AsyncProducer, error) {
	sarama.Logger = slog.NewLogLogger(logger.Handler(), slog.LevelInfo)

	saramaConfig := sarama.NewConfig()
	saramaConfig.Producer.Return.Successes = true
	saramaConfig.Producer.Return.Errors = true

	// one broker in the demo: the leader's acknowledgement is enough
	saramaConfig.Producer.RequiredAcks = sarama.WaitForLocal

	saramaConfig.Version = ProtocolVersion

	producer, err := sarama.NewAsyncProducer(brokers, saramaConfig)
	if err != nil {
		return nil, err
	}
	return producer, nil
}

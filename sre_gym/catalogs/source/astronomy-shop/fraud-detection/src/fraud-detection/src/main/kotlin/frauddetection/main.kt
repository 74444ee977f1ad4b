// Fraud detection: reads the OrderResult events that checkout publishes on the "orders" topic
// and keeps a running count of the orders it has seen. The kafkaQueueProblems flag slows the
// consumer down so that consumer lag builds up on the broker.
package frauddetection

import dev.openfeature.contrib.providers.flagd.FlagdOptions
import dev.openfeature.contrib.providers.flagd.FlagdProvider
import dev.openfeature.sdk.ImmutableContext
import dev.openfeature.sdk.OpenFeatureAPI
import dev.openfeature.sdk.Value
import org.apache.kafka.clients.consumer.ConsumerConfig
import org.apache.kafka.clients.consumer.ConsumerRecord
import org.apache.kafka.clients.consumer.KafkaConsumer
import org.apache.kafka.common.serialization.ByteArrayDeserializer
import org.apache.kafka.common.serialization.StringDeserializer
import org.apache.logging.log4j.LogManager
import org.apache.logging.log4j.Logger
import oteldemo.Demo.OrderResult
import java.time.Duration
import java.util.Properties
import java.util.UUID
import kotlin.system.exitProcess

const val topic = "orders"
const val groupID = "fraud-detection"

private val logger: Logger = LogManager.getLogger(groupID)

private val POLL_TIMEOUT: Duration = Duration.ofMillis(100)
private val QUEUE_PROBLEM_DELAY: Duration = Duration.ofSeconds(1)

private fun brokerAddress(): String {
    val addr = System.getenv("KAFKA_ADDR")
    if (addr.isNullOrBlank()) {
        logger.error("KAFKA_ADDR is not set, nothing to consume from")
        exitProcess(1)
    }
    return addr
}

private fun consumerConfig(bootstrap: String): Properties =
    Properties().apply {
        put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap)
        put(ConsumerConfig.GROUP_ID_CONFIG, groupID)
        put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer::class.java.name)
        put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer::class.java.name)
    }

fun main() {
    val flagd = FlagdProvider(FlagdOptions.builder().withGlobalTelemetry(true).build())
    OpenFeatureAPI.getInstance().setProvider(flagd)

    val consumer = KafkaConsumer<String, ByteArray>(consumerConfig(brokerAddress()))
    consumer.subscribe(listOf(topic))
    logger.info("Listening on topic '$topic' as consumer group '$groupID'")

    var seen = 0L
    consumer.use { c ->
        while (true) {
            for (record in c.poll(POLL_TIMEOUT)) {
                seen += 1
                inspect(record, seen)
            }
        }
    }
}

private fun inspect(record: ConsumerRecord<String, ByteArray>, seen: Long) {
    if (getFeatureFlagValue("kafkaQueueProblems") > 0) {
        logger.info("kafkaQueueProblems is on: holding this record for ${QUEUE_PROBLEM_DELAY.toMillis()} ms")
        Thread.sleep(QUEUE_PROBLEM_DELAY.toMillis())
    }
    val order = OrderResult.parseFrom(record.value())
    logger.info(
        "Order ${order.orderId} read from partition ${record.partition()} at offset ${record.offset()}, $seen orders so far"
    )
}

/**
 * Evaluates an integer feature flag through the flagd provider. Each call gets a fresh
 * session id as its targeting key; any evaluation problem yields the default 0 (flag off).
 */
fun getFeatureFlagValue(ff: String): Int {
    val session = ImmutableContext(mapOf("session" to Value(UUID.randomUUID().toString())))
    return OpenFeatureAPI.getInstance().client.getIntegerValue(ff, 0, session)
}

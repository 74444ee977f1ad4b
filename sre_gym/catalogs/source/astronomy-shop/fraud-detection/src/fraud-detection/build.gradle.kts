// Fraud detection: Kotlin/JVM consumer of the checkout "orders" topic, packaged as a fat jar.
import com.google.protobuf.gradle.id

plugins {
    application
    idea
    java
    kotlin("jvm") version "2.2.0"
    id("com.google.protobuf") version "0.9.5"
    id("com.github.johnrengelman.shadow") version "8.1.1"
}

group = "io.opentelemetry"
version = "1.0"

object Versions {
    const val grpc = "1.74.0"
    const val protobuf = "4.31.1"
    const val kafka = "4.0.0"
    const val log4j = "2.25.1"
    const val openFeature = "1.16.0"
    const val flagdProvider = "0.11.13"
}

repositories {
    mavenCentral()
    gradlePluginPortal()
}

dependencies {
    // wire format of the order events (oteldemo.Demo.OrderResult)
    implementation("com.google.protobuf:protobuf-kotlin:${Versions.protobuf}")
    implementation("com.google.api.grpc:proto-google-common-protos:2.59.2")
    implementation("io.grpc:grpc-protobuf:${Versions.grpc}")
    implementation("io.grpc:grpc-stub:${Versions.grpc}")
    implementation("io.grpc:grpc-netty:${Versions.grpc}")

    implementation("org.apache.kafka:kafka-clients:${Versions.kafka}")
    implementation("org.apache.logging.log4j:log4j-core:${Versions.log4j}")

    // feature flags, evaluated against flagd
    implementation("dev.openfeature:sdk:${Versions.openFeature}")
    implementation("dev.openfeature.contrib.providers:flagd:${Versions.flagdProvider}")

    implementation(kotlin("script-runtime"))
    testImplementation(kotlin("test"))
}

kotlin {
    jvmToolchain(21)
}

application {
    mainClass.set("frauddetection.MainKt")
}

tasks.shadowJar {
    archiveClassifier.set("all")
    mergeServiceFiles()
}

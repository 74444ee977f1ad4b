import com.google.protobuf.gradle.id

plugins {
    kotlin("jvm") version "2.2.0"
    application
    id("java")
    id("idea")
    id("com.google.protobuf") version "0.9.5"
    id("com.github.johnrengelman.shadow") version "8.1.1"
}

group = "io.opentelemetry"
version = "1.0"

val grpcVersion = "1.74.0"
val protobufVersion = "4.31.1"

repositories {
    mavenCentral()
    gradlePluginPortal()
}

dependencies {
    implementation("com.google.protobuf:protobuf-kotlin:${protobufVersion}")
    testImplementation(kotlin("test"))
    implementation(kotlin("script-runtime"))
    implementation("org.apache.kafka:kafka-clients:4.0.0")
    implementation("com.google.api.grpc:proto-google-common-protos:2.59.2")
    implementation("io.grpc:grpc-protobuf:${grpcVersion}")
    implementation("io.grpc:grpc-stub:${grpcVersion}")
    implementation("io.grpc:grpc-netty:${grpcVersion}")
    implementation("org.apache.logging.log4j:log4j-core:2.25.1")
    implementation("dev.openfeature:sdk:1.16.0")
    implementation("dev.openfeature.contrib.providers:flagd:0.11.13")
}

tasks {
    shadowJar {
        mergeServiceFiles()
    }
}

kotlin {
    jvmToolchain(21)
}

application {
    mainClass.set("frauddetection.MainKt")
}

// Gradle settings of fraud-detection (single project; plugins resolve from the portal).
pluginManagement {
    repositories {
        gradlePluginPortal()
        mavenCentral()
    }
}

rootProject.name = "fraud-detection"

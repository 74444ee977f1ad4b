"""Metric instruments of the recommendation service."""


def init_metrics(meter):
    """Create the service's instruments on ``meter``; returned by name for the servicer."""
    app_recommendations_counter = meter.create_counter(
        "app_recommendations_counter",
        unit="recommendations",
        description="Counts the total number of given recommendations",
    )

    return {
        "app_recommendations_counter": app_recommendations_counter,
    }

"""The real-Prometheus harness (sre_gym/testing/real_prometheus.py); it runs in tests/envs/test_live.py."""

from __future__ import annotations

from sre_gym.backends.live_time import TimeScale
from sre_gym.testing.fake_exporter import JOBS
from sre_gym.testing.real_prometheus import config


def test_the_configuration_scrapes_every_job_on_the_compressed_intervals():
    cfg = config("http://127.0.0.1:1234", TimeScale(100), "/tmp/rules.yml")
    assert cfg["global"] == {
        "scrape_interval": "150ms",
        "scrape_timeout": "150ms",
        "evaluation_interval": "300ms",
    }
    assert cfg["rule_files"] == ["/tmp/rules.yml"]
    assert [j["job_name"] for j in cfg["scrape_configs"]] == list(JOBS)
    assert {j["static_configs"][0]["targets"][0] for j in cfg["scrape_configs"]} == {
        "127.0.0.1:1234"
    }
    assert config("http://x:1", TimeScale(), "r")["global"]["scrape_interval"] == "15s"

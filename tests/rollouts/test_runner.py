"""rollout(): serial path, resume, progress, options; and the Ray path (marked ``ray``)."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from sre_gym.rollouts.runner import (
    CLUSTER_LABEL,
    Progress,
    RolloutError,
    map_tasks,
    parse_apps,
    parse_seeds,
    rollout,
    task_options,
    wants_ray,
)

APP = "online-boutique"


def counting_factory(
    log: str, name: str = "noop-counted", crash_seed: int | None = None, marker: str | None = None
):
    """A picklable agent factory that logs every episode it starts (and can kill its worker once).

    Defined in a closure so cloudpickle ships it by value to Ray workers."""

    def factory(seed):
        import os

        from sre_gym.agents import make_agent

        with open(log, "a") as f:
            f.write(f"{seed} {os.getpid()}\n")
        if seed == crash_seed and not os.path.exists(marker):
            with open(marker, "w"):
                pass
            os._exit(1)  # the worker process dies mid-rollout
        return make_agent("noop")

    factory.name = name
    return factory


def executions(log) -> list[int]:
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return [int(line.split()[0]) for line in f if line.strip()]


# ---------------------------------------------------------------------- inputs and options
def test_parse_seeds():
    assert parse_seeds("0-3") == [0, 1, 2, 3]
    assert parse_seeds("0,3,5-7,3") == [0, 3, 5, 6, 7]
    assert parse_seeds(7) == [7]
    assert parse_seeds(range(3)) == [0, 1, 2]
    with pytest.raises(ValueError, match="bad seed range"):
        parse_seeds("5-2")
    with pytest.raises(ValueError, match="bad seed range"):
        parse_seeds("a-b")


def test_parse_apps():
    assert parse_apps(APP) == [APP]
    assert parse_apps([APP, APP]) == [APP]
    with pytest.raises(ValueError, match="unknown app"):
        parse_apps("nope")


def test_task_options_pin_to_a_cluster():
    assert task_options() == {"num_cpus": 1, "max_retries": 3}
    opts = task_options(max_retries=0, resources={"cluster-a": 1}, cluster="kind-a")
    assert opts == {
        "num_cpus": 1,
        "max_retries": 0,
        "resources": {"cluster-a": 1.0},
        "label_selector": {CLUSTER_LABEL: "kind-a"},
    }
    merged = task_options(label_selector={"zone": "b"}, cluster="kind-a")["label_selector"]
    assert merged == {"zone": "b", CLUSTER_LABEL: "kind-a"}


def test_progress_writes_plain_lines():
    buf = io.StringIO()
    bar = Progress(3, "rollout x", buf)
    for _ in range(3):
        bar.update()
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("rollout x [")
    assert lines[-1].startswith("rollout x [####################] 3/3 100%")
    quiet = io.StringIO()
    Progress(2, "q", quiet, enabled=False).update()
    assert quiet.getvalue() == ""


# ---------------------------------------------------------------------- serial path
def test_serial_rollout_resumes_and_skips_finished_work(tmp_path):
    log, out = str(tmp_path / "log"), tmp_path / "res.jsonl"
    agent = counting_factory(log)
    first = rollout(agent, APP, "0-1", out=out, progress=False)
    assert [(r["app"], r["seed"]) for r in first] == [(APP, 0), (APP, 1)]
    assert (first.executed, first.skipped) == (2, 0)
    assert all(r["agent"] == "noop-counted" for r in first)
    assert all(r["scorecard"]["marathon_score"] == 0.0 for r in first)
    # a wider rerun runs only the new seed, and returns the records in the order asked
    second = rollout(agent, APP, "2,1,0", out=out, progress=False)
    assert (second.executed, second.skipped) == (1, 2)
    assert [r["seed"] for r in second] == [2, 1, 0]
    assert executions(log) == [0, 1, 2]
    assert len(out.read_text().splitlines()) == 3
    # the same records come back from the file as from the run
    assert rollout(agent, APP, "0-2", out=out, progress=False).records == [
        second.records[2],
        second.records[1],
        second.records[0],
    ]
    assert executions(log) == [0, 1, 2]


def test_other_agents_in_the_same_file_are_not_reused(tmp_path):
    out = tmp_path / "res.jsonl"
    log = str(tmp_path / "log")
    rollout(counting_factory(log, "a"), APP, "0", out=out, progress=False)
    res = rollout(counting_factory(log, "b"), APP, "0", out=out, progress=False)
    assert res.executed == 1 and executions(log) == [0, 0]
    assert {json.loads(line)["agent"] for line in out.read_text().splitlines()} == {"a", "b"}


def test_schedule_profiles_are_filed_apart(tmp_path):
    out, log = tmp_path / "res.jsonl", str(tmp_path / "log")
    agent = counting_factory(log)
    single = rollout(agent, APP, "0", out=out, progress=False, schedule="single")
    assert single.records[0]["schedule"] == "single"
    assert single.records[0]["scorecard"]["n_faults"] == 1
    # the same agent and seed under another profile is new work; under the same profile it is not
    custom = {"profile": "single", "n_faults": [2, 2]}
    two = rollout(agent, APP, "0", out=out, progress=False, schedule=custom)
    assert two.executed == 1 and two.records[0]["scorecard"]["n_faults"] == 2
    assert json.loads(two.records[0]["schedule"])["n_faults"] == [2, 2]
    again = rollout(agent, APP, "0", out=out, progress=False, schedule=dict(custom))
    assert again.executed == 0 and again.records == two.records
    assert executions(log) == [0, 0]


def test_progress_reports_each_finished_episode(tmp_path):
    buf = io.StringIO()
    rollout("noop", APP, "0-1", progress_stream=buf)
    assert buf.getvalue().splitlines()[-1].startswith("rollout noop [####################] 2/2")


def test_map_tasks_serial_and_bad_workers():
    got = {}
    map_tasks(divmod, [(7, 2), (9, 4)], got.__setitem__, use_ray=False)
    assert got == {0: (3, 1), 1: (2, 1)}
    with pytest.raises(ValueError, match="workers must be >= 1"):
        map_tasks(divmod, [(1, 1)], got.__setitem__, workers=0, use_ray=False)


def test_wants_ray_follows_arguments_and_a_running_session(monkeypatch):
    monkeypatch.delitem(sys.modules, "ray", raising=False)
    assert not wants_ray(None, None) and not wants_ray(1, None)
    assert wants_ray(2, None) and wants_ray(None, "auto") and wants_ray(1, None, pinned=True)
    # A session the caller initialised is used even for one worker (so one-worker timings are Ray's).
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(is_initialized=lambda: True))
    assert wants_ray(None, None) and wants_ray(1, None)
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(is_initialized=lambda: False))
    assert not wants_ray(1, None)


# ---------------------------------------------------------------------- Ray path
@pytest.mark.ray
def test_ray_rollout_equals_serial(ray_session):
    serial = rollout("runbook", APP, "0-3", progress=False)
    fanned = rollout("runbook", APP, "0-3", workers=2, progress=False)
    assert fanned.records == serial.records
    assert fanned.executed == 4
    assert ray_session.ray.is_initialized()  # a session it did not start is left running


@pytest.mark.ray
@pytest.mark.parametrize("max_retries", [0, 3], ids=["driver-resubmits", "ray-retries"])
def test_a_killed_worker_loses_nothing_and_a_rerun_does_no_work(ray_session, tmp_path, max_retries):
    log, out, marker = str(tmp_path / "log"), tmp_path / "res.jsonl", str(tmp_path / "crashed")
    agent = counting_factory(log, crash_seed=2, marker=marker)
    res = rollout(agent, APP, "0-3", workers=2, out=out, max_retries=max_retries, progress=False)
    assert os.path.exists(marker)  # the worker running seed 2 did die
    assert sorted(executions(log)) == [0, 1, 2, 2, 3]  # seed 2 ran twice, the rest once
    assert [r["seed"] for r in res] == [0, 1, 2, 3]
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in lines) == [0, 1, 2, 3]  # every (app, seed) exactly once
    again = rollout(agent, APP, "0-3", workers=2, out=out, progress=False)
    assert (again.executed, again.skipped) == (0, 4)
    assert sorted(executions(log)) == [0, 1, 2, 2, 3]  # no finished work was done again
    assert again.records == res.records


@pytest.mark.ray
def test_a_worker_that_always_dies_fails_the_rollout_but_keeps_finished_work(ray_session, tmp_path):
    log, out = str(tmp_path / "log"), tmp_path / "res.jsonl"

    def doomed(seed):
        import os

        with open(log, "a") as f:
            f.write(f"{seed} {os.getpid()}\n")
        if seed == 1:
            os._exit(1)
        from sre_gym.agents import make_agent

        return make_agent("noop")

    with pytest.raises(
        RolloutError, match=r"job \('online-boutique', 1, 'doomed'\) lost its worker 2 times"
    ):
        rollout(
            doomed,
            APP,
            "0-1",
            workers=1,
            address="auto",
            out=out,
            max_retries=0,
            max_resubmits=1,
            progress=False,
        )
    assert executions(log).count(1) == 2  # the first try and one re-submission
    assert [json.loads(line)["seed"] for line in out.read_text().splitlines()] == [0]


JOIN = """
import json, sys
from sre_gym.rollouts import rollout
import ray
assert not ray.is_initialized()
res = rollout("noop", "online-boutique", "0-1", address="auto", progress=False)
print(json.dumps(res.records, sort_keys=True))
"""


@pytest.mark.ray
def test_address_auto_joins_a_cluster_started_with_ray_start(ray_allowed):
    """A head node started with ``ray start`` (its own processes) and a separate driver that joins it
    with ``address="auto"`` (which follows ``RAY_ADDRESS``, as ``ray start`` tells users to set it);
    ``ray.init(address="auto")`` fails when no cluster is running, so the records prove the join,
    and they equal the serial path's."""
    ray_cli = str(Path(sys.executable).with_name("ray"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
    env.pop("RAY_ADDRESS", None)
    start = [ray_cli, "start", "--head", f"--port={port}", "--num-cpus=2", "--block"]
    start += ["--include-dashboard=false", "--disable-usage-stats"]
    # --block keeps the head in this child; ending it stops that cluster only (``ray stop`` would
    # also take down the session's instance)
    head = subprocess.Popen(start, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        status = [ray_cli, "status", f"--address=127.0.0.1:{port}"]
        for _ in range(120):
            if subprocess.run(status, env=env, capture_output=True, timeout=60).returncode == 0:
                break
            assert head.poll() is None, head.stderr.read().decode()[-2000:]
            time.sleep(1)
        out = subprocess.run(
            [sys.executable, "-c", JOIN],
            env={**env, "RAY_ADDRESS": f"127.0.0.1:{port}"},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr[-2000:]
        joined = json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        head.terminate()
        head.wait(timeout=120)
    serial = rollout("noop", APP, "0-1", progress=False, workers=None)
    assert joined == json.loads(json.dumps(serial.records, sort_keys=True))


@pytest.mark.ray
def test_custom_resources_and_cluster_labels_reach_ray(ray_session, tmp_path):
    seen = str(tmp_path / "seen")

    def spy(seed):
        import json

        import ray

        from sre_gym.agents import make_agent

        ctx = ray.get_runtime_context()
        with open(seen, "a") as f:
            got = {"resources": ctx.get_assigned_resources(), "labels": ctx.get_node_labels()}
            f.write(json.dumps(got) + "\n")
        return make_agent("noop")

    res = rollout(spy, APP, "0", resources={ray_session.resource: 1}, progress=False)
    assert res.executed == 1
    rollout(spy, APP, "1", cluster=ray_session.cluster, progress=False)
    with open(seen) as f:
        by_resource, by_label = (json.loads(line) for line in f)
    assert by_resource["resources"][ray_session.resource] == 1.0  # the task holds the resource
    assert "sre_gym_test_cluster" not in by_label["resources"]
    assert by_label["labels"][CLUSTER_LABEL] == ray_session.cluster


@pytest.mark.ray
def test_ray_workers_run_an_llm_agent_against_one_endpoint(ray_session):
    pytest.importorskip("openai")
    from sre_gym.testing.scripted_model import ScriptedChatServer, SreScript

    with ScriptedChatServer(SreScript()) as srv:
        opts = {"model": "scripted", "base_url": srv.base_url, "backoff_s": 0.0}
        res = rollout(
            "react", APP, "0-1", workers=2, progress=False, schedule="short", agent_options=opts
        )
        n = len(srv.requests)
    assert [r["agent"] for r in res] == ["react", "react"]
    assert sum(r["scorecard"]["cost"]["model_calls"] for r in res) == n > 0

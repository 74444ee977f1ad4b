"""SREMarathon-v0 on a live cluster (sre_gym/envs/live.py), end to end with no real cluster: the fake
Kubernetes API with its world (controller, kubelet, traffic), a loopback exporter its state drives,
and a REAL Prometheus (Debian's 2.42 from ``make prometheus``) scraping it with the rule pack.

The episode is time-compressed (``CompressedClock(K)``; docs/live.md says what that changes and why
it is the same episode): a short-profile episode (30 minutes, 15 invocations) takes about 20 s. The
no-op episode runs first and its sealed bundle is the runbook episode's no-action counterfactual.
Skipped, with the reason, when the Prometheus binaries are missing (``make prometheus``) unless
``SRE_GYM_REQUIRE_PROMETHEUS=1``.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")

import gymnasium as gym  # noqa: E402

import sre_gym  # noqa: E402, F401
from sre_gym.agents import make_agent  # noqa: E402
from sre_gym.backends.live_time import CompressedClock  # noqa: E402
from sre_gym.envs.live import live_config  # noqa: E402
from sre_gym.envs.marathon import agent_info  # noqa: E402
from sre_gym.testing.fake_cluster import FakeKubernetes  # noqa: E402
from sre_gym.testing.fake_exporter import FakeExporter  # noqa: E402

APP = "online-boutique"
K = 100.0  # episode seconds per wall second
SEED = 0


def _prometheus_bins():
    from sre_gym.testing.real_prometheus import binaries

    try:
        return binaries()
    except FileNotFoundError as e:
        if os.environ.get("SRE_GYM_REQUIRE_PROMETHEUS") == "1":
            pytest.fail(str(e))
        pytest.skip(f"no Prometheus binaries: {e}")


def state_of(kube) -> dict:
    """What injections change: templates, replicas, NetworkPolicies, node taints and cordons,
    ConfigMaps."""
    with kube.lock:
        return copy.deepcopy(
            {
                "deployments": {
                    n: (d["spec"]["template"]["spec"], d["spec"].get("replicas"))
                    for (_, n), d in kube.objects["deployments"].items()
                },
                "netpols": sorted(n for (_, n) in kube.objects["networkpolicies"]),
                "nodes": {
                    n: (
                        (o.get("spec") or {}).get("taints"),
                        (o.get("spec") or {}).get("unschedulable"),
                    )
                    for (_, n), o in kube.objects["nodes"].items()
                },
                "configmaps": {
                    n: c.get("data") for (_, n), c in kube.objects["configmaps"].items()
                },
            }
        )


class Cluster:
    """A fake cluster with a world, its exporter and a real Prometheus, on one compressed clock."""

    def __init__(self) -> None:
        from kubernetes import client

        from sre_gym.testing.real_prometheus import RealPrometheus

        bins = _prometheus_bins()
        self.clock = CompressedClock(K)
        self.kube = FakeKubernetes(APP, clock=self.clock.now, world=True)
        self.kube.server_time = self.clock.now
        self.kube.start()
        self.exporter = FakeExporter(self.kube)
        self.exporter.start()
        self.prom = RealPrometheus(self.exporter.url, self.clock.scale, bins).start()
        # the agent and the injector are separate identities, each held to its RBAC manifest
        from sre_gym.backends.live_rbac import injector_manifest, manifest

        ns = self.kube.namespace
        for token, docs in (("agent", manifest(ns)), ("injector", injector_manifest(ns))):
            rules = [r for d in docs if d["kind"] in ("Role", "ClusterRole") for r in d["rules"]]
            self.kube.add_identity(token, f"system:serviceaccount:{ns}:sre-gym-{token}", rules)
        self.api, self.injector_api = (self._client(client, t) for t in ("agent", "injector"))
        self.baseline = state_of(self.kube)
        deadline = time.monotonic() + 30
        while (
            self.exporter.scrapes < len(("a", "b", "c", "d", "e")) and time.monotonic() < deadline
        ):
            time.sleep(0.2)  # Prometheus' first scrape comes about 5 s after it starts

    def _client(self, client, token: str):
        cfg = client.Configuration()
        cfg.host = self.kube.url
        cfg.api_key = {"BearerToken": token}
        cfg.api_key_prefix = {"BearerToken": "Bearer"}
        return client.ApiClient(cfg)

    def make(self, **kw):
        return gym.make(
            "SREMarathon-v0",
            app=APP,
            schedule="short",
            backend="live",
            prometheus_url=self.prom.url,
            clock=self.clock,
            api_client=self.api,
            injector_api_client=self.injector_api,
            **kw,
        )

    def stop(self) -> None:
        self.api.close()
        self.injector_api.close()
        self.prom.stop()
        self.exporter.stop()
        self.kube.stop()


def play(env, agent_name: str) -> dict:
    agent = make_agent(agent_name)
    obs, info = env.reset(seed=SEED)
    done, steps, total = False, 0, 0.0
    while not done:
        obs, reward, done, _, info = env.step(agent(obs, agent_info(info)))
        steps += 1
        total += reward
    return {"info": info, "steps": steps, "return": total, "evidence": env.unwrapped.evidence}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("live-bundles")
    c = Cluster()
    try:
        t = time.perf_counter()
        # the no-op run goes through rollout(..., env_options=...), as a live fan-out would
        from sre_gym.bundle import read_bundle
        from sre_gym.rollouts import rollout

        opts = {
            "backend": "live",
            "prometheus_url": c.prom.url,
            "clock": c.clock,
            "api_client": c.api,
            "injector_api_client": c.injector_api,
        }
        args = {"schedule": "short", "env_options": opts, "progress": False, "out": out / "r.jsonl"}
        (rec,) = rollout("noop", APP, [SEED], bundle_dir=str(out), **args).records
        ev = read_bundle(rec["bundle"])
        noop = {
            "info": {"scorecard": rec["scorecard"], "bundle": rec["bundle"]},
            "steps": len(ev.of("invocation")),
            "return": rec["return"],
            "evidence": ev,
            "record": rec,
            "resumed": rollout("noop", APP, [SEED], bundle_dir=str(out), **args),
        }
        noop["reverted_state"] = state_of(c.kube)
        env = c.make(bundle_dir=str(out), noaction_bundle=noop["info"]["bundle"])
        runbook = play(env, "runbook")
        env.close()
        runbook["reverted_state"] = state_of(c.kube)
        yield {"noop": noop, "runbook": runbook, "cluster": c, "wall_s": time.perf_counter() - t}
    finally:
        c.stop()


def test_short_episodes_of_noop_and_runbook_run_end_to_end(runs):
    for name in ("noop", "runbook"):
        r = runs[name]
        assert r["steps"] == 15  # 30 minutes at the 120 s cadence
        card = r["info"]["scorecard"]
        assert card["n_faults"] == card["n_injected"] >= 6
        assert r["return"] == pytest.approx(card["net_score"])  # the default reward
    noop = runs["noop"]["info"]["scorecard"]
    assert noop["marathon_score"] == noop["net_score"] == 0.0
    rb = runs["runbook"]["info"]["scorecard"]
    assert rb["interventions"] > 0 and rb["correlation"] > 0
    kube = runs["cluster"].kube
    forbidden = [m for m in kube.mutations if m["method"] != "GET"]
    assert forbidden  # (both identities wrote; neither was refused, as the next line checks)
    assert not [
        r for r in kube.requests if r[1].startswith("/api/v1/namespaces/online-boutique/secrets")
    ]


def test_a_rollout_passes_its_env_options_to_every_episode_and_resumes(runs):
    """The no-op run came from rollout(..., env_options=...): its record says backend live, and
    the same rollout again skips it (live and simulated records of one file are kept apart)."""
    noop = runs["noop"]
    assert noop["record"]["backend"] == "live"
    assert noop["resumed"].skipped == 1 and noop["resumed"].executed == 0


def test_every_fault_is_injected_and_reverted_and_the_cluster_is_back(runs):
    for name in ("noop", "runbook"):
        ev = runs[name]["evidence"]
        inj = {e["index"] for e in ev.of("injection")}
        rev = {e["index"] for e in ev.of("revert")}
        assert inj == rev == set(range(ev.manifest["n_faults"]))
        # the noop run repaired nothing: every revert found its fault in place
        if name == "noop":
            assert all(e["acted"] for e in ev.of("revert"))
    base = runs["cluster"].baseline
    for name in ("noop", "runbook"):
        after = runs[name]["reverted_state"]
        assert after["netpols"] == base["netpols"]
        assert after["nodes"] == base["nodes"]
        assert after["configmaps"] == base["configmaps"]
    # the noop run changed nothing itself: every template and replica count is back
    assert runs["noop"]["reverted_state"]["deployments"] == base["deployments"]


def test_alerts_fire_from_the_real_prometheus_and_are_attributable(runs):
    ev = runs["noop"]["evidence"]
    alerts = ev.of("alert")
    assert len(alerts) >= 3
    names = {a["name"] for a in alerts}
    pack = {
        r["alert"]
        for g in __import__("sre_gym.backends.live_rules", fromlist=["x"]).rule_file()["groups"]
        for r in g["rules"]
    }
    assert names <= pack
    from sre_gym.scoring import rules

    grace = ev.manifest["scoring"]["attribution_grace_s"]
    hit = [
        f["index"]
        for f in ev.of("injection")
        if any(
            rules.attributable(
                a, f["start"], f["end"], rules.scope(f["affected"], f["culprits"]), grace
            )
            for a in alerts
        )
    ]
    assert len(hit) >= len(ev.of("injection")) // 2


def test_probes_fail_during_faults_and_entry_traffic_is_recorded(runs):
    ev = runs["noop"]["evidence"]
    probe, entry = ev.arrays["probe"], ev.arrays["entry"]
    failed = [f["index"] for f in ev.of("injection") if (probe[f["index"]] == 0).any()]
    assert len(failed) >= len(ev.of("injection")) // 2
    n = int((ev.manifest["episode_end"] - ev.manifest["t0"]) // ev.manifest["tick_s"])
    # requests/s at the entry point, tick by tick (a scrape lost on a loaded machine may leave a gap)
    assert (entry[: n - 2, 0] > 0).mean() >= 0.9


def test_the_bundle_rescores_offline_to_the_same_scorecard_with_the_named_counterfactual(runs):
    rb = runs["runbook"]
    path = rb["info"]["bundle"]
    with open(os.path.join(path, "manifest.json")) as f:
        man = json.load(f)
    assert man["backend"] == "live"
    assert man["noaction"]["bundle"] == os.path.basename(runs["noop"]["info"]["bundle"])
    assert len(man["noaction"]["seal"]) == 64
    out = subprocess.run(
        [sys.executable, "-m", "sre_gym.cli", "score", "--json", path],
        capture_output=True,
        text=True,
        check=True,
    )
    rescored = json.loads(out.stdout)
    assert rescored["scorecard"] == rb["info"]["scorecard"]
    assert rescored["reward"] == "net" and rescored["score"] == rb["info"]["scorecard"]["net_score"]
    assert rb["info"]["scorecard"]["degradation"]["ratio"] is not None
    # the recorded no-op run is read once the run acts, so net_score charges harm at every step
    assert rb["info"]["scorecard"]["net"]["costs"]["degradation"] is not None


def test_live_arguments_are_checked():
    with pytest.raises(ValueError, match="needs prometheus_url"):
        live_config("live", {})
    with pytest.raises(TypeError, match="apply to backend='live' only"):
        live_config("sim", {"prometheus_url": "http://x"})
    with pytest.raises(TypeError, match="unexpected arguments bogus"):
        live_config("live", {"prometheus_url": "http://x", "bogus": 1})
    with pytest.raises(ValueError, match="unknown backend"):
        live_config("k8s", {})


def test_the_env_refuses_to_start_when_preflight_fails_and_says_why():
    from sre_gym.testing.fake_cluster import FakeCluster

    with FakeCluster(APP) as fc:  # a Prometheus without the rule pack loaded
        fc.kube.server_time = lambda: fc.kube.clock()
        env = gym.make(
            "SREMarathon-v0", app=APP, schedule="short", backend="live",
            prometheus_url=fc.prom.url, api_client=fc.api_client(),
            clock=CompressedClock(1, start=fc.kube.clock()),
        )  # fmt: skip
        with pytest.raises(RuntimeError, match="live preflight failed") as err:
            env.reset(seed=0)
        assert "FAIL  alert rules" in str(err.value) and "of the pack's 44 rules" in str(err.value)
        assert fc.kube.mutations == [] or all(
            m["path"].endswith("selfsubjectaccessreviews") for m in fc.kube.mutations
        )  # nothing injected
        env.close()


def test_hand_placed_faults_a_cluster_cannot_inject_are_refused_up_front():
    from sre_gym.testing.fake_cluster import FakeCluster

    with FakeCluster(APP) as fc:
        env = gym.make(
            "SREMarathon-v0", app=APP, backend="live", prometheus_url=fc.prom.url,
            api_client=fc.api_client(), preflight=False,
        )  # fmt: skip
        with pytest.raises(ValueError, match="cannot inject ob-cpu-hog-frontend"):
            env.reset(seed=0, options={"faults": ["ob-cpu-hog-frontend"]})
        assert [m for m in fc.kube.mutations if m["method"] != "POST"] == []
        env.close()

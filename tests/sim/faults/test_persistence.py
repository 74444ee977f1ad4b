"""Repair persistence: a repair is challenged in a fork after the hold, and only lasting ones hold."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sre_gym.agents.oracle import OracleAgent, call
from sre_gym.envs.marathon import INVOCATION_S, SREMarathonEnv
from sre_gym.scoring.scorer import score

OB = "online-boutique"
LEAK = "ob-code-recommendation-leak"  # a memory leak shipped in a commit; the remedy is a rollback


class RestartingOracle(OracleAgent):
    """Finds and reports like the oracle, but 'repairs' by restarting the culprit."""

    def _remedy(self, inj, iid):
        return [call("restart", deployment=inj.fault.target, incident_id=iid)]


def _run(agent_cls, fault: str = LEAK, persistence: bool = True, until_s: int = 1500):
    env = SREMarathonEnv(app=OB)
    agent = agent_cls(env)
    obs, info = env.reset(seed=0, options={"faults": [{"fault": fault, "start": 60, "end": 900}]})
    env.backend.injector.persistence.enabled = persistence
    stream = []
    while env.invocation * INVOCATION_S < until_s:
        obs, _, _, _, info = env.step(agent.act(obs, info))
        stream.append(json.dumps(obs, sort_keys=True, default=str))
    return env, stream


@pytest.fixture(scope="module")
def restarted():
    return _run(RestartingOracle)


def test_a_lasting_repair_holds_the_challenge():
    env, _ = _run(OracleAgent)
    (ch,) = env.evidence.of("challenge")
    assert ch["outcome"] == "held" and ch["relapsed_at"] is None
    assert ch["kind"] == "restart" and ch["target"] == "recommendationservice"
    # challenged only after the repair held for the hold period
    assert ch["t"] - ch["recovered_at"] >= env.scoring.repair_hold_s
    # the restarted pods come up and the probe's window clears before the watch starts
    assert ch["settled_at"] > ch["t"]
    assert ch["window_end"] - ch["settled_at"] == env.scoring.persistence_s
    assert score(env.evidence, cutoff=env.backend.now)["outcomes"]["handled"] == 1


def test_a_restart_that_only_resets_a_leak_relapses(restarted):
    env, _ = restarted
    # a restarted pod leaks again: it relapses under the challenge, or (with real-cluster timing,
    # where the probe reads a window and the pod OOMs again within minutes) never holds for the
    # hold period in the first place
    chs = env.evidence.of("challenge")
    assert all(c["outcome"] == "relapsed" for c in chs)
    assert all(c["t"] < c["relapsed_at"] <= c["window_end"] for c in chs)
    out = score(env.evidence, cutoff=env.backend.now)["outcomes"]
    assert out["handled"] == 0 and out["acted_without_repair"] == 1


def test_the_challenge_runs_in_a_fork_and_never_changes_the_real_run(restarted):
    env_on, stream_on = restarted
    env_off, stream_off = _run(RestartingOracle, persistence=False)
    assert stream_on == stream_off
    inj_on, inj_off = env_on.backend.injector, env_off.backend.injector
    assert np.array_equal(inj_on.probe, inj_off.probe)
    assert env_off.evidence.of("challenge") == []
    strip = [e for e in env_on.evidence.events if e["type"] != "challenge"]
    assert json.dumps(strip, sort_keys=True, default=str) == json.dumps(
        env_off.evidence.events, sort_keys=True, default=str
    )


def test_no_intervention_no_challenge():
    env = SREMarathonEnv(app=OB)
    env.reset(seed=0, options={"faults": [LEAK]})
    for _ in range(8):
        env.step([])
    assert env.evidence.of("challenge") == []
    assert not env.backend.injector.persistence.watches


def test_a_challenge_fork_probes_only_the_challenged_fault_and_judges_as_if_it_probed_all(
    monkeypatch,
):
    """The fork probes the challenged fault alone (the others' probes are never read there), and
    the challenges come out as they do when the fork probes every live fault."""
    from sre_gym.sim.cluster import SimCluster
    from sre_gym.sim.faults.injector import Injector

    faults = [
        {"fault": LEAK, "start": 60, "end": 900},
        {"fault": "ob-addr-drift-cartservice-redis-cart", "start": 120, "end": 900},
    ]

    def run(m) -> tuple[list[dict], list[tuple[int, np.ndarray]]]:
        """The challenges, and per fork: the tick it was forked at and its probe records."""
        forks: list[tuple[int, SimCluster]] = []
        real_fork = SimCluster.fork

        def fork(self, *a, **k):
            forks.append((self.tick, real_fork(self, *a, **k)))
            return forks[-1][1]

        m.setattr(SimCluster, "fork", fork)
        env = SREMarathonEnv(app=OB)
        agent = OracleAgent(env)
        obs, info = env.reset(seed=0, options={"faults": faults})
        while env.invocation * INVOCATION_S < 1500:
            obs, _, _, _, info = env.step(agent.act(obs, info))
        hook = "_on_tick"
        probes = [
            (k, next(h.__self__ for h in f.tick_hooks if h.__name__ == hook).probe)
            for k, f in forks
        ]
        return env.evidence.of("challenge"), probes

    with monkeypatch.context() as m:
        challenges, forks = run(m)
    assert {c["index"] for c in challenges} == {0, 1}
    for (k, probe), ch in zip(forks, challenges, strict=True):
        mine, other = ch["index"], 1 - ch["index"]
        assert (probe[mine, k : k + 5] >= 0).all()  # the fork probed the challenged fault
        assert (probe[other, k:] == -1).all()  # and nothing of the other one
    with monkeypatch.context() as m:
        # forks that ignore the restriction probe every live fault
        m.setattr(
            Injector, "only", property(lambda self: None, lambda self, v: None), raising=False
        )
        all_probed, forks_all = run(m)
    assert any(
        (probe[1 - ch["index"], k:] >= 0).any()
        for (k, probe), ch in zip(forks_all, all_probed, strict=True)
    )
    assert all_probed == challenges

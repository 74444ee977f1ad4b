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

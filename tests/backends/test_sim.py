"""The simulated backend's source surface: read the running image's tree, patch it through the build
pipeline, and have the fix judged by the fault's fix predicate (not by text equality)."""

from __future__ import annotations

import json

import pytest

from sre_gym.agents.oracle import OracleAgent, call
from sre_gym.backends.base import OperationError, alert_view
from sre_gym.backends.sim import SimBackend
from sre_gym.envs.marathon import INVOCATION_S, SREMarathonEnv
from sre_gym.scoring.scorer import score
from sre_gym.sim.diffs import make_diff, reverse_diff

OB = "online-boutique"
LEAK = "ob-code-recommendation-leak"  # a per-request cache that never evicts, shipped in a commit
FILE = "src/recommendationservice/recommendation_server.py"


class PatchingOracle(OracleAgent):
    """Finds and reports like the oracle; repairs code faults by submitting a patch."""

    def __init__(self, env, patch):
        super().__init__(env)
        self.patch = patch  # fn(env, injection) -> diff text, or {"revert": sha}

    def _remedy(self, inj, iid):
        p = self.patch(self.env, inj)
        source = p if isinstance(p, dict) else {"diff": p}
        return [call("submit_patch", service=inj.fault.target, incident_id=iid, **source)]


def _episode(patch):
    env = SREMarathonEnv(app=OB)
    agent = PatchingOracle(env, patch)
    obs, info = env.reset(seed=0, options={"faults": [{"fault": LEAK, "start": 60, "end": 900}]})
    results = []
    while env.invocation * INVOCATION_S < 1200:
        obs, _, _, _, info = env.step(agent.act(obs, info))
        results += [r for r in _results(obs) if r["tool"] == "submit_patch"]
    return env, results


def _results(obs):
    return json.loads(obs["tool_results"])


def test_reverting_the_commit_through_the_pipeline_repairs_the_fault():
    env, results = _episode(lambda env, inj: reverse_diff(inj.detail["change"].diff))
    assert results and results[0]["ok"], results
    r = results[0]["result"]
    assert [s["stage"] for s in r["stages"]] == ["apply", "lint", "unit-tests", "build"]
    assert all(s["status"] == "passed" for s in r["stages"]) and r["revision"] > 1
    (x,) = [x for x in env.evidence.of("intervention") if x["tool"] == "submit_patch"][:1]
    assert x["target"] == "recommendationservice"
    card = score(env.evidence, cutoff=env.backend.now)
    assert card["outcomes"]["handled"] == 1, card["outcomes"]


def test_reverting_by_sha_builds_the_same_revert_and_repairs_the_fault():
    env, results = _episode(lambda env, inj: {"revert": inj.detail["record"].sha[:10]})
    assert results and results[0]["ok"], results
    assert all(s["status"] == "passed" for s in results[0]["result"]["stages"])
    (inj,) = [i for i in env.backend.injector.injections if i is not None]
    (ours,) = [c for c in env.backend.changes() if c["author"] == "oncall-agent"]
    assert ours["diff"] == reverse_diff(inj.detail["record"].diff)
    assert score(env.evidence, cutoff=env.backend.now)["outcomes"]["handled"] == 1


def test_a_different_hand_written_fix_is_judged_by_what_it_does():
    """Not the commit's revert: the cache stays, but it is bounded. The fix predicate accepts it."""

    def bound_the_cache(env, inj):
        old = env.backend.read_source("recommendationservice", FILE)
        anchor = "            self._cache[key] = catalog\n"
        assert anchor in old
        new = old.replace(
            anchor,
            anchor
            + "            if len(self._cache) > 512:\n                self._cache.clear()\n",
        )
        return make_diff(FILE, old, new)

    env, results = _episode(bound_the_cache)
    assert results and results[0]["ok"], results
    assert "len(self._cache)" in env.backend.read_source("recommendationservice", FILE)
    assert score(env.evidence, cutoff=env.backend.now)["outcomes"]["handled"] == 1


def test_an_unrelated_patch_builds_but_repairs_nothing():
    def comment_only(env, inj):
        return (
            f"--- a/{FILE}\n+++ b/{FILE}\n@@ -24,3 +24,4 @@\n \n \n"
            " class RecommendationService(demo_pb2_grpc.RecommendationServiceServicer):\n"
            "+    # reviewed\n"
        )

    env, results = _episode(comment_only)
    assert results and all(r["ok"] for r in results), results
    card = score(env.evidence, cutoff=env.backend.now)
    assert card["outcomes"]["handled"] == 0
    assert card["outcomes"]["acted_without_repair"] == 1


def test_a_patch_failing_a_stage_changes_nothing():
    b = SimBackend(OB, 0)
    b.advance_to(b.episode_start + 60)
    rev = b.cluster.world.deployment("recommendationservice").current.number
    with pytest.raises(OperationError, match="pipeline failed"):
        b.submit_patch(
            "recommendationservice",
            f"--- a/{FILE}\n+++ b/{FILE}\n@@ -1,1 +1,1 @@\n-no such line\n+x\n",
            b.now,
        )
    assert b.cluster.world.deployment("recommendationservice").current.number == rev
    files = b.list_source("recommendationservice")
    assert FILE in files
    assert "class RecommendationService" in b.read_source("recommendationservice", FILE)
    with pytest.raises(OperationError, match="no service"):
        b.list_source("nope")


def test_close_lets_go_of_the_telemetry():
    b = SimBackend("online-boutique", 0)
    b.advance_to(b.t0 + 300)
    fams = list(b.cluster.tsdb.families.values())
    assert fams and all(f.data.size for f in fams)
    b.close()
    assert b.cluster.tsdb.families == {} and all(f.data.size == 0 for f in fams)


def _alerts_by_definition(b: SimBackend, t: float) -> list[dict]:
    """Every alert fired at or before ``t``, in firing order, with its state as of ``t``."""
    return [
        alert_view(aid, b._alerts[aid], b._alerts[aid]["fired_at"], t)
        for aid in b._alert_order
        if b._alerts[aid]["fired_at"] <= t
    ]


@pytest.mark.parametrize("app", ["online-boutique", "train-ticket"])
def test_the_alert_list_follows_fires_and_resolutions_and_hands_out_copies(app):
    b = SimBackend(app, 0)
    times, states = [], set()
    for k in range(1, 31):
        t = b.episode_start + 120.0 * k
        b.alerts(t)  # read ahead of the world: what fires or resolves until t is not known yet
        b.advance_to(t)
        times.append(t)
        # the list kept from read to read, an earlier time after later evaluations, and a time
        # between evaluations
        for s in (t, times[len(times) // 2], t - 7.5, t):
            got = b.alerts(s)
            assert got == _alerts_by_definition(b, s)
            states.update(a["state"] for a in got)
    assert states == {"firing", "resolved"}
    got = b.alerts(times[-1])
    got[0]["state"] = "tampered"
    assert b.alerts(times[-1])[0]["state"] != "tampered"


def test_the_alert_listing_shares_views_until_an_alert_changes():
    """``alert_listing`` gives what ``alerts`` gives, without copies: a view is the same object
    from read to read until its alert resolves, when a new view replaces it."""
    b = SimBackend("online-boutique", 0)
    last: dict[str, dict] = {}
    replaced = kept = 0
    for k in range(1, 31):
        t = b.episode_start + 120.0 * k
        b.advance_to(t)
        listing = b.alert_listing(t)
        assert listing == _alerts_by_definition(b, t)
        for v in listing:
            old = last.get(v["id"])
            if old is not None:
                if old["state"] == v["state"]:
                    assert old is v
                    kept += 1
                else:
                    assert old is not v and old["state"] == "firing"
                    replaced += 1
            last[v["id"]] = v
        listing.clear()  # the caller's list: the backend's own is not touched
        assert b.alert_listing(t) == _alerts_by_definition(b, t)
    assert kept and replaced

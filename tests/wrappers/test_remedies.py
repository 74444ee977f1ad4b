"""DiscreteRemedies: a Discrete action of remedies with automatic incidents; the numeric RL stack."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from sre_gym.backends.base import alert_entities
from sre_gym.envs.marathon import N_INVOCATIONS
from sre_gym.wrappers import REMEDIES, DiscreteRemedies, NumericObservation
from sre_gym.wrappers.observed import env_drift


def _ts(iso):
    from sre_gym.clock import parse_time

    return parse_time(iso)


def action_of(env, remedy, service):
    if remedy == "evacuate":
        return 1 + len(REMEDIES) * len(env.services) + env.nodes.index(service)
    return 1 + REMEDIES.index(remedy) * len(env.services) + env.services.index(service)


@pytest.mark.parametrize("auto_report", [False, True])
def test_check_env_passes_for_the_numeric_stack(make, strict_check, auto_report):
    strict_check(DiscreteRemedies(make(NumericObservation), auto_report=auto_report))


def test_action_space_and_names(make):
    env = make(DiscreteRemedies)
    n = len(env.services)
    assert len(REMEDIES) == 8
    assert env.nodes == ("kind-worker", "kind-worker2", "kind-worker3", "kind-worker4")
    assert env.action_space == gym.spaces.Discrete(1 + len(REMEDIES) * n + len(env.nodes))
    assert env.describe(0) == "noop"
    assert env.describe(action_of(env, "scale_up", "cartservice")) == "scale_up cartservice"
    assert env.describe(action_of(env, "flag_off", "frontend")) == "flag_off frontend"
    assert env.describe(env.action_space.n - 1) == "evacuate kind-worker4"
    names = [env.describe(a).split() for a in range(1, env.action_space.n)]
    assert {r for r, _ in names} == {*REMEDIES, "evacuate"}
    assert [t for r, t in names if r == "evacuate"] == list(env.nodes)
    env.reset(seed=0)
    with pytest.raises(gym.error.InvalidAction):
        env.step(env.action_space.n)


def test_a_remedy_reports_the_firing_alerts_then_acts_citing_the_incident(make):
    env = make(DiscreteRemedies)
    env.reset(seed=0)
    base = env.unwrapped
    for _ in range(10):
        env.step(0)
    scaled = {h.deployment for h in base.backend.cluster.topo.app.autoscalers}
    svc = next(
        s
        for s in env.services
        if s not in scaled  # an autoscaler would take a hand scale back
        and base.backend.k8s_get("deployments", s)["ready"] == "1/1"
        and any(a["state"] == "firing" and s in str(a["labels"]) for a in base.alerts_view())
    )
    # rollback undoes the suspect change: the last deploy to the service at or before the first of
    # its alerts firing now (what list_changes and get_alerts show)
    first = min(
        _ts(a["starts_at"])
        for a in base.alerts_view()
        if a["state"] == "firing" and svc in str(a["labels"])
    )
    suspect = max(
        (c for c in base.backend.changes() if c["service"] == svc and c["t"] <= first),
        key=lambda c: c["t"],
    )
    calls = env.calls(action_of(env, "rollback", svc))
    assert calls[0]["tool"] == "report_incident" and calls[0]["args"]["artifact"] == suspect["sha"]
    # rolled back past it now; a change with a diff is also reverted in the head, so that the next
    # deploy does not bring it back
    assert calls[1]["tool"] == "rollback"
    assert calls[1]["args"]["to_revision"] < suspect["revision"]
    if suspect["diff"]:
        assert calls[2:] == [
            {
                "tool": "submit_patch",
                "args": {"service": svc, "revert": suspect["sha"], "incident_id": "INC-0001"},
            }
        ]
    else:
        assert len(calls) == 2
    obs, r, term, trunc, info = env.step(action_of(env, "restart", svc))
    assert info["remedy"] == f"restart {svc}"
    (inc,) = base.toolbox.incidents.values()
    assert inc.culprits == [svc] and inc.artifact.startswith(f"pod/{svc}-") and inc.alerts
    assert all(svc in json.dumps(a["labels"]) for a in base.alerts_view() if a["id"] in inc.alerts)
    results = json.loads(obs["tool_results"])
    assert [x["tool"] for x in results] == ["report_incident", "restart"]
    assert all(x["ok"] for x in results)
    (x,) = base.evidence.of("intervention")
    assert (x["tool"], x["incident_id"], x["in_scope"]) == ("restart", inc.id, True)
    # the same remedy again keeps the incident's artifact (the restart's new pods are not what was
    # wrong); another kind of remedy revises it to name what it acts on: a replica count is the
    # deployment's
    again = env.calls(action_of(env, "restart", svc))
    assert [c["tool"] for c in again if "artifact" in c["args"]] == []
    assert again[-1]["args"]["incident_id"] == inc.id
    obs, *_ = env.step(action_of(env, "scale_up", svc))
    assert len(base.toolbox.incidents) == 1 and inc.artifact == f"deployment/{svc}"
    assert base.evidence.of("intervention")[-1]["tool"] == "scale"
    # one more replica than it had (what the world does with it afterwards is another matter)
    assert json.loads(obs["tool_results"])[-1]["result"].endswith(f"{svc} scaled to 2")


def test_delete_pods_does_nothing_without_notready_nodes_and_mask_says_so(make):
    env = make(DiscreteRemedies)
    obs, info = env.reset(seed=0)
    mask = info["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,) and mask[0] == 1
    a = action_of(env, "delete_pods", "cartservice")
    assert mask[a] == 0 and env.calls(a) == []
    assert mask[action_of(env, "rollback", "cartservice")] in (0, 1)
    obs, r, term, trunc, info = env.step(a)
    assert info["remedy"] == "noop" and env.unwrapped.toolbox.incidents == {}


def test_delete_pods_moves_pods_off_a_notready_node(make):
    env = make(DiscreteRemedies)
    env.reset(seed=0)
    b = env.unwrapped.backend
    node = next(p["node"] for p in b.k8s_get("pods", None) if p["deployment"] == "cartservice")
    b.cluster.set_node_ready(node, False, b.now)  # what a node failure looks like to kubectl
    mask = env.action_mask()
    a = action_of(env, "delete_pods", "cartservice")
    assert mask[a] == 1
    calls = env.calls(a)
    assert calls[0]["args"]["artifact"] == node
    assert [c["tool"] for c in calls[1:]] == ["delete_resource"] * (len(calls) - 1)


def test_evacuate_moves_the_services_pods_off_a_notready_node_naming_the_node(make):
    env = make(DiscreteRemedies)
    _, info = env.reset(seed=0)
    a = action_of(env, "evacuate", "kind-worker2")
    assert info["action_mask"][a] == 0 and env.calls(a) == []  # every node is Ready
    base = env.unwrapped
    b = base.backend
    on_node = sorted(
        p["name"]
        for p in b.k8s_get("pods", None)
        if p["node"] == "kind-worker2" and p["deployment"] in env.services
    )
    assert on_node
    b.cluster.set_node_ready("kind-worker2", False, b.now)  # what a node failure looks like
    assert env.action_mask()[a] == 1
    assert env.action_mask()[action_of(env, "evacuate", "kind-worker")] == 0
    calls = env.calls(a)
    report = calls[0]
    assert report["tool"] == "report_incident"
    assert report["args"]["root_cause_services"] == ["kind-worker2"]
    assert report["args"]["artifact"] == "node/kind-worker2"
    assert sorted(c["args"]["name"] for c in calls[1:]) == on_node
    assert all(c["tool"] == "delete_resource" and c["args"]["kind"] == "pods" for c in calls[1:])
    assert all(c["args"]["incident_id"] == "INC-0001" for c in calls[1:])
    _, _, _, _, info = env.step(a)
    assert info["remedy"] == "evacuate kind-worker2"
    (inc,) = base.toolbox.incidents.values()
    assert inc.culprits == ["kind-worker2"] and inc.artifact == "node/kind-worker2"
    deleted = [i for i in base.evidence.of("intervention") if i["tool"] == "delete_resource"]
    assert len(deleted) == len(on_node)
    # nothing of the services is left running there, so the action has nothing more to do
    assert info["action_mask"][a] == 0 and env.calls(a) == []


def test_restore_env_puts_a_hand_edited_setting_back_as_git_has_it(make):
    env = make(DiscreteRemedies)
    _, info = env.reset(seed=0)
    a = action_of(env, "restore_env", "checkoutservice")
    assert info["action_mask"][a] == 0 and env.calls(a) == []  # nothing drifted yet
    b = env.unwrapped.backend
    # what a config-drift fault does: an edit that no change in list_changes explains
    b.cluster.patch("checkoutservice", "env.CURRENCY_SERVICE_ADDR", "currencyservice:7001", b.now)
    assert env.action_mask()[a] == 1
    assert env.action_mask()[action_of(env, "restore_env", "frontend")] == 0
    calls = env.calls(a)
    assert calls[0]["tool"] == "report_incident"
    assert calls[0]["args"]["artifact"] == "env.CURRENCY_SERVICE_ADDR"
    assert calls[1:] == [
        {
            "tool": "patch_config",
            "args": {
                "deployment": "checkoutservice",
                "key": "env.CURRENCY_SERVICE_ADDR",
                "value": "currencyservice:7000",
                "incident_id": "INC-0001",
            },
        }
    ]
    _, _, _, _, info = env.step(a)
    assert info["remedy"] == "restore_env checkoutservice"
    env_vars = b.k8s_describe("deployments", "checkoutservice")["template"]["env"]
    assert {"name": "CURRENCY_SERVICE_ADDR", "value": "currencyservice:7000"} in env_vars
    # that var no longer differs from git (the marathon's own faults may have edited another since,
    # and the mask follows them)
    drift = env_drift(b, "checkoutservice")
    assert "CURRENCY_SERVICE_ADDR" not in drift and info["action_mask"][a] == int(bool(drift))


def test_async_vector_env_runs_a_whole_episode():
    # two workers: each forked worker holds a whole episode and the pages it copies from this
    # process (about 200 MB), and the test session's memory is bounded
    n_envs = 2
    envs = gym.make_vec(
        "SREMarathon-v0",
        num_envs=n_envs,
        vectorization_mode="async",
        wrappers=[NumericObservation, DiscreteRemedies],
    )
    try:
        assert isinstance(envs.single_observation_space, gym.spaces.Box)
        assert isinstance(envs.single_action_space, gym.spaces.Discrete)
        obs, info = envs.reset(seed=0)
        assert (
            obs.shape == (n_envs, envs.single_observation_space.shape[0])
            and obs.dtype == np.float32
        )
        rng = np.random.default_rng(0)
        totals, ended = np.zeros(n_envs), np.zeros(n_envs, dtype=bool)
        for _ in range(N_INVOCATIONS):
            a = np.where(
                rng.random(n_envs) < 0.1, rng.integers(1, envs.single_action_space.n, n_envs), 0
            )
            obs, r, term, trunc, info = envs.step(a)
            totals += r
            ended |= term
            assert envs.observation_space.contains(obs)
        assert ended.all() and np.all(np.isfinite(totals))
    finally:
        envs.close()


def test_each_episode_of_trouble_on_a_service_gets_its_own_incident(make):
    # two faults on one service, apart: the second must not be filed under the first's incident
    fid = "ob-cpu-hog-frontend"
    faults = [{"fault": fid, "start": 120, "end": 600}, {"fault": fid, "start": 1080, "end": 1560}]
    env = make(DiscreteRemedies, noise="off", schedule="short")
    env.reset(seed=0, options={"faults": faults})
    base = env.unwrapped
    restart = action_of(env, "restart", "frontend")
    for _ in range(3):
        env.step(0)
    env.step(restart)
    first = base.toolbox.incidents["INC-0001"]
    while base.invocation < 10:  # the first fault's alerts resolve, the second's fire
        env.step(0)
    assert not {a["id"] for a in base.alerts_view() if a["state"] == "firing"} & set(first.alerts)
    calls = env.calls(restart)
    assert [c["tool"] for c in calls] == ["resolve_incident", "report_incident", "restart"]
    env.step(restart)
    assert first.status == "resolved"
    second = base.toolbox.incidents["INC-0002"]
    assert second.status == "open" and second.alerts and not set(second.alerts) & set(first.alerts)
    env.step(restart)  # the same episode: the open incident is extended, not replaced
    assert len(base.toolbox.incidents) == 2
    while True:
        *_, terminated, truncated, info = env.step(0)
        if terminated or truncated:
            break
    assert info["scorecard"]["correlation"] == 1.0  # both faults credited


def test_auto_report_files_every_firing_service_and_numbers_incidents_as_the_toolbox_does(make):
    env = DiscreteRemedies(make(NumericObservation), auto_report=True)
    quiet = make(NumericObservation, DiscreteRemedies)
    for e in (env, quiet):
        e.reset(seed=3)
    base = env.unwrapped
    same_step = 0  # steps where the remedy and the automatic reports both open incidents
    for k in range(12):
        # a remedy on the service with the most firing alerts, in the same step as the automatic
        # reports of the others: first as soon as two services have alerts (nothing filed yet),
        # then now and then
        firing = [a for a in base.alerts_view() if a["state"] == "firing"]
        counts = {s: sum(s in str(a["labels"]) for a in firing) for s in env.services}
        top = max(env.services, key=lambda s: counts[s])
        busy = sum(1 for c in counts.values() if c) >= 2
        act = counts[top] and ((busy and not base.toolbox.incidents) or k % 3 == 2)
        a = action_of(env, "restart", top) if act else 0
        before = len(base.toolbox.incidents)
        opens_own = a and top not in env._incident_of
        obs, r, term, trunc, info = env.step(a)
        same_step += bool(opens_own and len(base.toolbox.incidents) > before + 1)
        # the wrapper's idea of each service's incident is the toolbox's
        incidents = base.toolbox.incidents
        assert all(incidents[iid].culprits == [s] for s, iid in env._incident_of.items()), k
        quiet.step(0)
        assert all(x["ok"] for x in base.last_results), (k, base.last_results)
    incidents = base.toolbox.incidents
    assert incidents and quiet.unwrapped.toolbox.incidents == {} and same_step
    # every service with alerts firing at the last step's start is filed: its incident is open
    # and holds those alerts
    firing = [a for a in base.alerts_view() if a["state"] == "firing"]
    for s in env.services:
        mine = {a["id"] for a in firing if s in alert_entities(a["labels"])}
        if mine:
            inc = incidents[env._incident_of[s]]
            assert inc.status == "open" and inc.culprits == [s]


def test_auto_report_files_a_lost_node_under_the_node(make):
    env = DiscreteRemedies(make(NumericObservation), auto_report=True)
    env.reset(seed=0)
    base = env.unwrapped
    b = base.backend
    b.cluster.set_node_ready("kind-worker3", False, b.now)

    def node_alerts():
        return {
            a["id"]
            for a in base.alerts_view()
            if a["state"] == "firing" and "kind-worker3" in alert_entities(a["labels"])
        }

    _run_until(env, node_alerts)
    seen = node_alerts()
    env.step(0)  # filed in the invocation that sees them
    inc = base.toolbox.incidents[env._incident_of["kind-worker3"]]
    assert inc.culprits == ["kind-worker3"] and inc.artifact == "node/kind-worker3"
    assert seen <= set(inc.alerts)
    assert all(x["ok"] for x in base.last_results), base.last_results


def _run_until(env, pred, limit=20):
    for _ in range(limit):
        if pred():
            return
        env.step(0)
    raise AssertionError("condition not reached")


def test_raise_cpu_doubles_the_limit_up_to_its_bound(make):
    from sre_gym.wrappers.remedies import MAX_CPU_CORES

    env = make(DiscreteRemedies)
    env.reset(seed=0)
    b = env.unwrapped.backend
    a = action_of(env, "raise_cpu", "cartservice")
    limit = b.k8s_describe("deployments", "cartservice")["template"]["resources"]["limits"]["cpu"]
    assert limit == "300m" and env.action_mask()[a] == 1
    calls = env.calls(a)
    assert calls[0]["args"]["artifact"] == "deployment/cartservice"
    assert calls[-1]["tool"] == "patch_config" and calls[-1]["args"]["value"] == "600m"
    seen = []
    while env.action_mask()[a]:
        obs, r, term, trunc, info = env.step(a)
        assert info["remedy"] == "raise_cpu cartservice"
        tpl = b.k8s_describe("deployments", "cartservice")["template"]
        seen.append(tpl["resources"]["limits"]["cpu"])
    # 300m doubles to 600m, 1200m, 2400m, then stops at the bound
    assert seen == ["600m", "1200m", "2400m", f"{int(MAX_CPU_CORES * 1000)}m"]
    assert env.calls(a) == []


def test_delete_netpol_removes_the_egress_lockdown_and_names_it(make):
    fid = "ob-egress-deny-checkoutservice-paymentservice"
    env = make(DiscreteRemedies, noise="off", schedule="short")
    env.reset(seed=0, options={"faults": [{"fault": fid, "start": 120, "end": 1500}]})
    b = env.unwrapped.backend
    a = action_of(env, "delete_netpol", "checkoutservice")
    # the app's own policies only admit ingress: nothing to delete before the fault
    assert b.k8s_get("networkpolicies", None) and env.action_mask()[a] == 0
    assert env.calls(a) == []
    _run_until(env, lambda: env.action_mask()[a] == 1)
    (inj,) = b.ground_truth()["injections"]
    calls = env.calls(a)
    policy = inj.detail["policy"]
    assert calls[0]["args"]["artifact"] == f"networkpolicy/{policy}"
    assert calls[0]["args"]["artifact"] in inj.artifacts
    assert calls[-1]["tool"] == "delete_resource" and calls[-1]["args"]["name"] == policy
    env.step(a)
    assert policy not in {p["name"] for p in b.k8s_get("networkpolicies", None)}
    assert env.action_mask()[a] == 0


def test_flag_off_sets_the_services_flags_back_to_their_default(make):
    env = make(DiscreteRemedies, app="astronomy-shop", noise="off", schedule="short")
    fid = "as-flag-adfailure-on"
    env.reset(seed=0, options={"faults": [{"fault": fid, "start": 120, "end": 1500}]})
    b = env.unwrapped.backend
    a = action_of(env, "flag_off", "ad")
    assert env.action_mask()[a] == 0 and env.calls(a) == []
    _run_until(env, lambda: env.action_mask()[a] == 1)
    (inj,) = b.ground_truth()["injections"]
    calls = env.calls(a)
    assert calls[0]["args"]["artifact"] == "flags.adFailure"
    assert calls[0]["args"]["artifact"].lower() in inj.artifacts
    assert calls[-1]["tool"] == "patch_config"
    assert calls[-1]["args"] | {"incident_id": None} == {
        "deployment": "flagd",
        "key": "flags.adFailure",
        "value": "off",
        "incident_id": None,
    }
    obs, r, term, trunc, info = env.step(a)
    assert all(x["ok"] for x in env.unwrapped.last_results), env.unwrapped.last_results
    assert env.action_mask()[a] == 0  # the flag is back at its default

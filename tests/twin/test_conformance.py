"""The twin against the full simulator, in lockstep from the same seed (bounded samples).

Both engines start from the same seed and draws and take the same actions; every component is
compared where it is read: the dynamics' per-tick outputs and the telemetry counters, the alert
rules' transitions (every alert with its rule, severity, entities, firing and resolution times),
the fault probes and artifacts, and, with the full env's random masked actions replayed, the
observation (``NumericObservation.features``), the mask (``DiscreteRemedies``), the reward (the
scorer on the env's evidence, the degradation cost included) and both final scores.

The dynamics agree to rounding, not bit for bit (``twin/dynamics.py``: services average their pods
by sums where the simulator takes BLAS ``w @ x`` products, which differ in the last bit with three
pods or more). Both engines take a call's expected attempts from ``sim.dynamics.expected_attempts``,
which stays well-conditioned where a callee fails all but ~1e-12 of its calls (the closed form
``(1 - f**tries) / (1 - f)`` turned that last bit into 1e-5 to 1e-4 there, and counts then
differed by one after 60-100 ticks on Train Ticket). So on every app the counters agree exactly and
the rest to rounding (relative 1e-12, absolute for shares) over the whole sample, with the
full env's actions replayed too. Everything else is compared exactly. The larger, distributional
comparison is ``benchmarks/twin_fidelity.py``.
"""

from __future__ import annotations

import collections

import gymnasium as gym
import numpy as np
import pytest

import sre_gym  # noqa: F401
from sre_gym.backends.base import alert_entities
from sre_gym.backends.sim import SimBackend
from sre_gym.catalogs import RELEASE
from sre_gym.clock import EPOCH
from sre_gym.orchestrator.open_world import noise_profile_from
from sre_gym.orchestrator.profiles import schedule_profile_from
from sre_gym.twin import alerts, alloc, engine, features
from sre_gym.twin.layout import layout
from sre_gym.twin.rules import compile_pack
from sre_gym.twin.state import TwinParams
from sre_gym.wrappers import DiscreteRemedies, NumericObservation

APPS = ("online-boutique", "train-ticket", "astronomy-shop")


def params(app: str, **kw) -> TwinParams:
    return TwinParams(
        layout(app),
        schedule=schedule_profile_from("marathon"),
        noise=noise_profile_from("production"),
        release=RELEASE,
        **kw,
    )


def no_action_run(app: str, seed: int, ticks: int):
    """Both engines simulate up to ``ticks`` ticks with no agent (the twin evaluating its rules
    every 30 s as the engine does), compared as they come; returns the ticks that agree."""
    prm = params(app)
    z = alloc.sizes(prm, cols=len(compile_pack(prm.layout).col_rule))
    s = engine.fill_rows(prm, z, np.array([seed]))
    b = SimBackend(app, seed)
    cl = b.cluster
    for k in range(ticks):
        out = engine.tick(prm, s)
        if k % 2 == 0:
            alerts.evaluate(prm, s, np.array([0]))
        cl.advance_to(EPOCH + k * 15)
        worst = 0.0
        for ref, got in (
            (cl.rec_served[k], out.served[0]),
            (cl.rec_err[k], out.err[0]),
            (cl.rec_lat[k], out.lat[0]),
            (cl.rec_entry[k], s.tel.entry[0, k]),
        ):
            # relative to the value, but shares (errors, the entry's failed and slow) of about
            # 1e-13 are compared absolutely: their digits are those of 1 - E for E near 1
            rel = np.abs(ref - got) / np.maximum(np.abs(ref), 1.0)
            worst = max(worst, float(rel.max()))
        m = cl.metrics
        same = all(
            np.array_equal(ref, got[0])
            for ref, got in ((m.c_ok, s.tel.c_ok), (m.c_err, s.tel.c_err), (m.c_edge, s.tel.c_edge))
        )
        assert worst <= 1e-12 and same, f"{app} seed {seed}: tick {k} differs ({worst:.2e})"
    return prm, s, b


@pytest.mark.parametrize("app", APPS)
def test_no_action_ticks_match_the_full_simulator(app):
    agreed = 160  # the warm-up and 30 minutes
    prm, s, b = no_action_run(app, 11, agreed)
    t_cut = EPOCH + agreed * 15  # (alerts past the sample are not compared)
    cp = compile_pack(prm.layout)
    al = s.alerts

    def key(name, lab, fired, resolved):
        ents = tuple(sorted(alert_entities(lab)))
        return (name, lab.get("severity"), ents, fired, resolved if resolved < t_cut else np.inf)

    want = collections.Counter()
    for a in b.alerts(t_cut):
        rec = b._alerts[a["id"]]
        if rec["fired_at"] < t_cut:
            want[key(a["name"], a["labels"], rec["fired_at"], rec["resolved_at"] or np.inf)] += 1
    got = collections.Counter()
    for i in range(al.n[0]):
        col = al.col[0, i]
        if al.fired[0, i] < t_cut:
            name = cp.rules[cp.col_rule[col]].name
            got[key(name, cp.col_labels[col], al.fired[0, i], al.resolved[0, i])] += 1
    assert len(want) >= 5  # the sample has alerts to compare
    assert got == want
    nf = len(b.schedule.faults)
    inj = b.injector
    assert np.array_equal(s.faults.probe[0, :nf, :agreed], inj.probe[:nf, :agreed])
    assert np.array_equal(s.faults.artifact[0, :nf, :agreed], inj.artifact[:nf, :agreed])


def replay(
    app: str,
    seed: int,
    steps: int,
    reward: str = "net",
    auto: bool = False,
    actions: list[int] | None = None,
    atol: float = 0.0,
):
    """The full env's random masked actions (or ``actions``) replayed on the twin, step by
    step; rewards and scores equal to ``atol``."""
    full = gym.make("SREMarathon-v0", app=app, reward=reward)
    env = DiscreteRemedies(NumericObservation(full), auto_report=auto)
    obs, info = env.reset(seed=seed)
    prm = params(app, reward=reward, auto_report=auto, counterfactual=True)
    z = alloc.sizes(prm, cols=len(compile_pack(prm.layout).col_rule))
    drawn = engine.plans(prm, np.array([seed]))
    s = engine.reset(prm, z, np.array([seed]), drawn=drawn)
    base = engine.reset_base(prm, z, np.array([seed]), drawn=drawn)
    rng = np.random.default_rng(seed)
    acted = 0
    for k in range(steps):
        o, m = features.observe(prm, s)[0], features.action_mask(prm, s)[0]
        assert np.array_equal(o, obs), f"observation at step {k}"
        assert np.array_equal(m, info["action_mask"]), f"mask at step {k}"
        a = int(rng.choice(np.flatnonzero(info["action_mask"]))) if actions is None else actions[k]
        acted += a != 0
        obs, r, term, trunc, info = env.step(a)
        s, r_twin, _ = engine.step(prm, s, np.array([a]), base)
        assert abs(r_twin[0] - r) <= atol, f"reward at step {k}: twin {r_twin[0]}, full {r}"
    assert acted >= steps // 2
    scores = full.unwrapped.scores_now
    want = [scores["marathon_score"], scores["net_score"]]
    assert np.abs(s.agent.score[0] - want).max() <= atol
    return steps


@pytest.mark.parametrize(
    ("app", "seed", "steps", "reward", "auto"),
    [
        ("online-boutique", 5, 14, "net", False),
        ("online-boutique", 6, 10, "paper", True),
        ("astronomy-shop", 5, 10, "net", False),
        ("train-ticket", 5, 8, "net", True),
    ],
)
def test_replayed_actions_give_the_full_envs_observations_masks_and_rewards(
    app, seed, steps, reward, auto
):
    assert replay(app, seed, steps, reward, auto) == steps


def test_reverting_an_agents_revert_brings_the_defect_back():
    """Train Ticket seed 2000: at step 9 the agent rolls back ts-station-service and reverts its
    faulty change through the pipeline; at step 15 the suspect is that revert, and reverting it
    puts the change's lines back, so the next build carries the defect again (both engines)."""
    acts = [0, 39, 90, 278, 262, 124, 345, 484, 116, 33, 88, 25, 140, 330, 32, 33, 5, 24]
    # rewards to rounding: net_score's degradation cost sums entry series that agree to ~1e-15
    # here (docs/twin.md, difference 1)
    n = replay("train-ticket", 2000, len(acts), actions=acts, atol=1e-12)
    assert n == len(acts)


@pytest.mark.parametrize(
    ("seed", "acts"),
    [
        # step 5 reverts shippingservice's OTEL_SERVICE_NAME, appended at the end of the env list,
        # while TZ (inserted at its top) is in the head: no conflict; step 10 tries to revert the
        # schedule's revert of a productcatalogservice change that later changes meet: refused
        (2015, [0, 0, 2, 8, 51, 6, 78, 3, 5, 9, 3, 4]),
        # step 9 reverts paymentservice's NODE_ENV with LOG_LEVEL (the same place, so the pipeline
        # appended it at the end instead) and GRPC_VERBOSITY in the head: no conflict
        (2045, [0, 0, 1, 5, 8, 14, 6, 46, 85, 5, 78]),
        # step 16 reverts cartservice's REDIS_ADDR edit, the env list's last variable when a
        # later change appended OTEL_SERVICE_NAME right after its value line: refused
        (2037, [0, 20, 85, 26, 56, 10, 7, 2, 63, 11, 32, 85, 1, 3, 7, 8, 2, 0]),
    ],
)
def test_reverts_through_the_pipeline_conflict_where_the_manifests_lines_meet(seed, acts):
    n = replay("online-boutique", seed, len(acts), actions=acts, atol=1e-12)
    assert n == len(acts)


def test_a_config_faults_revert_commit_conflicts_when_reverted_under_later_edits():
    """Astronomy Shop seed 2008: the schedule reverts checkout's memory-limit change through the
    pipeline (a revert commit); at step 14 the agent reverts that revert while a later CPU-limit
    change edits the next manifest line: the pipeline refuses it in both engines."""
    acts = [0, 21, 94, 120, 5, 29, 34, 85, 36, 116, 27, 7, 1, 4, 5, 0]
    assert replay("astronomy-shop", 2008, len(acts), actions=acts, atol=1e-12) == len(acts)


def test_evacuating_a_node_deletes_its_pods_deployment_by_deployment():
    """Astronomy Shop seed 2010: at step 24 the agent evacuates a NotReady node; the wrapper
    deletes its pods grouped by deployment (in order of each one's first stranded pod), so the
    replacements start at the same times in both engines."""
    acts = [0, 0, 95, 80, 21, 112, 46, 19, 15, 7, 8, 95, 85, 6, 16, 1, 12, 130, 28, 27, 4, 29, 75]
    acts += [82, 145, 0]
    assert replay("astronomy-shop", 2010, len(acts), actions=acts, atol=1e-12) == len(acts)


@pytest.mark.parametrize(
    ("seed", "acts"),
    [
        # a schedule's change clashes with a revert of a revert and is built on the base tree,
        # dropping the head's env changes; its revert (the fault's end) puts them back
        (
            2015,
            [0, 0, 2, 8, 51, 6, 78, 3, 5, 9, 3, 4, 56, 11, 9, 5, 26, 10, 20, 27, 3, 7, 10, 64]
            + [7, 57, 90, 10, 3, 6, 15, 0],
        ),
        # the schedule reverts a change such a commit dropped: the head steps back to before it
        (
            2028,
            [0, 2, 8, 1, 17, 3, 56, 9, 11, 1, 5, 10, 1, 63, 6, 4, 16, 1, 90, 3, 7, 13, 5, 63]
            + [5, 22, 15, 8, 25, 10, 85, 56, 0],
        ),
    ],
)
def test_reverting_a_commit_built_on_the_base_tree_puts_back_what_it_dropped(seed, acts):
    assert replay("online-boutique", seed, len(acts), actions=acts, atol=1e-12) == len(acts)


@pytest.mark.parametrize(
    ("seed", "steps"),
    [
        # step 27 reverts the schedule's revert of a config fault: its env value comes back
        (2046, 29),
        # the schedule's revert of a config change meets a later append right after its line:
        # it does not merge, and the head steps back to the tree before the change
        (2028, 37),
    ],
)
def test_random_agents_reverts_follow_the_pipeline(seed, steps):
    assert replay("online-boutique", seed, steps, atol=1e-12) == steps


def test_policies_are_named_per_episode_and_deleted_by_name():
    """Online Boutique seed 2048: two partitions of frontend create egress policies of the same
    name; an incident located to the first one's name is localized to the second as well, as
    the scorer matches names (the reward at step 16)."""
    acts = [0, 0, 1, 6, 5, 2, 3, 7, 6, 85, 56, 17, 10, 3, 20, 63, 56, 0]
    assert replay("online-boutique", 2048, len(acts), actions=acts, atol=1e-12) == len(acts)


def test_a_change_re_arms_a_reverted_defect_until_it_is_reverted_too():
    """Online Boutique seed 2014: cartservice's JSON-storage defect was reverted through the
    pipeline; a later change (defensive copies) puts back the call its fix forbids, so its build
    carries that defect again (step 20), and reverting that change fixes it again (step 23)."""
    acts = [0, 0, 6, 4, 2, 63, 9, 47, 9, 63, 11, 1, 48, 3, 6, 56, 3, 28, 22, 85, 6, 15, 3, 2, 0]
    assert replay("online-boutique", 2014, len(acts), actions=acts, atol=1e-12) == len(acts)


def test_a_change_that_meets_the_heads_edits_is_built_on_the_base_tree():
    """Online Boutique seed 2020: step 15 rolls currencyservice back to a build older than its
    last four, which the node pulled before and keeps, so the pod starts without a pull; later
    its memory-limit change meets the CPU-limit change in its head, so the pipeline builds it on
    the base tree and the head's other changes (the trace sampler among them) are gone: at step
    29 reverting the sampler is an empty diff."""
    acts = [0, 9, 63, 56, 14, 6, 15, 21, 63, 6, 9, 4, 54, 56, 6, 4, 20, 7, 56, 2, 7, 79, 4, 52]
    acts += [89, 8, 17, 48, 11, 4, 0]
    assert replay("online-boutique", 2020, len(acts), actions=acts, atol=1e-12) == len(acts)

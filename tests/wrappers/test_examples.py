"""The examples run (with small step counts) and do what they say."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_openai_tools_scripted_holds_a_valid_conversation(capsys):
    out = load("openai_tools_scripted").main(["--seed", "0", "--invocations", "6"])
    assert out["invocations"] == 6 and out["turns"] >= 6
    msgs = out["messages"]
    assert msgs[0]["role"] == "system"
    pending: set[str] = set()
    for m in msgs:  # every tool call is answered before the model speaks again
        if m["role"] == "assistant":
            assert not pending
            pending = {c["id"] for c in m.get("tool_calls") or []}
        elif m["role"] == "tool":
            pending.remove(m["tool_call_id"])
    called = [
        c["function"]["name"]
        for m in msgs
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]
    assert "get_alerts" in called and "report_incident" in called
    assert "score" in capsys.readouterr().out


def test_train_numeric_updates_the_policy(capsys):
    out = load("train_numeric").main(["--steps", "12", "--horizon", "4", "--seed", "1"])
    assert out["episodes"] == 3 and len(out["returns"]) == 3
    assert np.all(np.isfinite(out["W"])) and not np.allclose(out["W"], out["W_init"])
    assert "episode   3" in capsys.readouterr().out


def test_train_sb3_per_service_policy_scores_every_service_with_one_network():
    """Needs the ``rl`` extra (not installed by ``make test``): swapping two services' rows in the
    observation swaps their remedies' logits, in ``DiscreteRemedies``' action order, and leaves the
    no-op's logit and the value alone."""
    pytest.importorskip("sb3_contrib")
    import torch as th
    from sb3_contrib import MaskablePPO

    ex = load("train_sb3")
    env = ex.make_env("online-boutique", horizon=2)
    nf, nr = len(ex.SERVICE_FEATURES), len(ex.REMEDIES)
    ns, nn_ = len(env.env.services), len(env.env.nodes)
    assert env.action_space.n == 1 + nr * ns + nn_
    model = MaskablePPO(ex.per_service_policy(ns, nn_), env, n_steps=8, batch_size=8, seed=0)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    obs = rng.uniform(0, 1, size=obs.shape).astype(np.float32)  # rows that differ everywhere
    i, j = 1, 4
    swapped = obs.copy()
    rows = swapped[: ns * nf].reshape(ns, nf)
    rows[[i, j]] = rows[[j, i]]
    pol = model.policy
    with th.no_grad():
        logits = [
            pol.get_distribution(th.as_tensor(o)[None]).distribution.logits[0].numpy()
            for o in (obs, swapped)
        ]
        values = [pol.predict_values(th.as_tensor(o)[None]).item() for o in (obs, swapped)]
    a, b = logits
    for r in range(nr):
        assert b[1 + r * ns + i] == pytest.approx(a[1 + r * ns + j], abs=1e-6)
        assert b[1 + r * ns + j] == pytest.approx(a[1 + r * ns + i], abs=1e-6)
    assert b[0] == pytest.approx(a[0], abs=1e-6) and values[1] == pytest.approx(values[0], abs=1e-6)
    assert not np.allclose(a[1 + i :: ns][:nr], a[1 + j :: ns][:nr])  # the two rows differ
    # node logits: one layer shared by every node over the context and the node's readiness, so
    # two nodes' logits differ by one weight times their readiness difference; a swap of services
    # leaves them alone
    nodes = 1 + nr * ns
    assert b[nodes:] == pytest.approx(a[nodes:], abs=1e-6)
    with th.no_grad():  # unnormalised (a distribution's logits are shifted by a logsumexp)
        raw = pol.action_net(pol.mlp_extractor.forward_actor(th.as_tensor(obs)[None]))[0]
    ready = obs[ns * nf : ns * nf + nn_].astype(np.float64)
    slope = np.diff(raw[nodes:].numpy().astype(np.float64)) / np.diff(ready)
    assert slope == pytest.approx(np.full(nn_ - 1, slope[0]), rel=1e-3) and slope[0] != 0
    before = [p.detach().clone() for p in pol.action_net.parameters()]
    model.learn(total_timesteps=8)
    after = list(pol.action_net.parameters())
    assert any(not th.equal(p0, p1) for p0, p1 in zip(before, after, strict=True))


def test_train_sb3_saves_a_model_that_loads_and_plays_the_same(tmp_path, capsys):
    """Needs the ``rl`` extra: ``--save`` keeps the trained model (its per-service policy class
    too) and ``--load`` evaluates it without training, to the same deterministic scores."""
    pytest.importorskip("sb3_contrib")
    ex = load("train_sb3")
    path = str(tmp_path / "model.zip")
    common = ["--envs", "1", "--horizon", "2", "--eval-seeds", "1000"]
    trained = ex.main(["--timesteps", "64", "--save", path, *common])
    loaded = ex.main(["--load", path, *common])
    assert loaded["steps"] == trained["steps"] and loaded["steps_per_s"] is None
    key = "maskable-ppo (deterministic)"
    assert loaded["scores"][key] == trained["scores"][key]
    assert f"saved {path}" in capsys.readouterr().out

"""flagd's config file and its parse (sre_gym/sim/flags.py)."""

from __future__ import annotations

import json

from sre_gym.catalogs import load_app
from sre_gym.sim.flags import flag_file, variants_of

AS = "astronomy-shop"


def test_the_flag_file_round_trips_the_chosen_variants():
    app = load_app(AS)
    defaults = {f.name: f.default for f in app.flags}
    assert variants_of(flag_file(app)) == defaults
    flag = next(f for f in app.flags if len(f.variants) > 1)
    other = next(v for v in flag.variants if v != flag.default)
    text = flag_file(app, {flag.name: other})
    assert variants_of(text) == {**defaults, flag.name: other}
    doc = json.loads(text)
    assert doc["flags"][flag.name]["variants"] == dict(flag.variants)
    assert all(v["state"] == "ENABLED" for v in doc["flags"].values())


def test_the_memoised_file_is_the_one_rendered_for_that_app_and_choice():
    app = load_app(AS)
    flag = next(f for f in app.flags if len(f.variants) > 1)
    other = next(v for v in flag.variants if v != flag.default)
    first = flag_file(app, {flag.name: other})
    assert flag_file(app, {flag.name: other}) is first  # served from the memo
    assert flag_file(app, {flag.name: flag.default}) == flag_file(app)
    assert flag_file(app, {flag.name: other}) != flag_file(app)
    # another app object with other flags never gets this app's file
    fewer = app.model_copy(update={"flags": app.flags[:1]})
    assert set(json.loads(flag_file(fewer))["flags"]) == {app.flags[0].name}


def test_a_file_flagd_cannot_parse_leaves_every_flag_at_its_default():
    assert variants_of("{not json") == {}
    assert variants_of("[]") == {}


def test_the_memo_of_flag_files_is_bounded():
    """Every combination of variants is a new file: the memo never holds more than
    ``_FILES_SIZE`` of them, however many a process renders."""
    from itertools import product

    from sre_gym.sim import flags

    app = load_app(AS)
    multi = sorted(app.flags, key=lambda f: -len(f.variants))[:3]
    combos = list(product(*(list(f.variants) for f in multi)))
    assert len(combos) > flags._FILES_SIZE  # enough distinct files to overflow it
    for combo in combos:
        text = flag_file(app, {f.name: v for f, v in zip(multi, combo, strict=True)})
        assert len(flags._FILES) <= flags._FILES_SIZE
    assert variants_of(text) == {
        **{f.name: f.default for f in app.flags},
        **{f.name: v for f, v in zip(multi, combos[-1], strict=True)},
    }

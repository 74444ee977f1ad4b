"""Sealed evidence bundles (sre_gym/bundle/__init__.py)."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import sre_gym.bundle as B
from sre_gym.bundle import BundleError, read_bundle, verify, write_bundle
from sre_gym.bundle.evidence import Evidence
from sre_gym.scoring.config import ScoringConfig


def small_evidence(seed: int = 3) -> Evidence:
    ev = Evidence(
        manifest={
            "format": "sre_gym.bundle/1",
            "release": "sre-marathon-r1",
            "app": "online-boutique",
            "seed": seed,
            "t0": 0.0,
            "tick_s": 15,
            "episode_start": 600.0,
            "episode_end": 6000.0,
            "n_faults": 2,
            "scoring": ScoringConfig().to_dict(),
        }
    )
    ev.add(
        "injection",
        1200.0,
        index=0,
        fault_id="f0",
        start=1200.0,
        end=1680.0,
        culprits=["a"],
        affected=["a"],
        artifacts=["x"],
        commit=None,
    )
    ev.add(
        "alert",
        1290.0,
        id="ALR-0001",
        entities=["a"],
        labels={"severity": "warning", "note": "ünïcode ✓"},
    )
    ev.add(
        "incident",
        1320.0,
        id="INC-0001",
        status="open",
        alerts=["ALR-0001"],
        culprits=["a"],
        artifact="x",
    )
    ev.add(
        "intervention",
        1323.0,
        tool="restart",
        target="a",
        object="deployment/a",
        incident_id="INC-0001",
        in_scope=True,
    )
    ev.add("revert", 1680.0, index=0, acted=False)
    probe = np.full((2, 41), -1, dtype=np.int8)  # a short horizon keeps the exhaustive checks fast
    probe[0, 8:12] = 0
    probe[0, 12:20] = 1
    ev.arrays["probe"] = probe
    ev.arrays["artifact"] = np.where(probe >= 0, 1, -1).astype(np.int8)
    ev.arrays["entry"] = np.linspace(0, 1, 41 * 3).reshape(41, 3)
    return ev


def files_of(path: Path) -> dict[str, bytes]:
    return {
        p.relative_to(path).as_posix(): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def bundle(tmp_path) -> Path:
    return write_bundle(small_evidence(), tmp_path / "runs")


# ---------------------------------------------------------------------------------- round trip


def test_round_trip(bundle):
    ev = small_evidence()
    assert bundle.parent.name == "runs"
    digest = verify(bundle)
    assert bundle.name == f"online-boutique-s3-{digest[:12]}"
    assert set(files_of(bundle)) == {
        "manifest.json",
        "events.jsonl.gz",
        "arrays/probe.npy",
        "arrays/artifact.npy",
        "arrays/entry.npy",
        "seal.json",
    }
    back = read_bundle(bundle)
    assert back.manifest == ev.manifest
    assert back.events == ev.events
    assert set(back.arrays) == set(ev.arrays)
    for k, a in ev.arrays.items():
        assert back.arrays[k].dtype == a.dtype
        np.testing.assert_array_equal(back.arrays[k], a)


def test_seal_layout(bundle):
    seal = json.loads((bundle / "seal.json").read_text())
    assert seal["format"] == "sre_gym.bundle/1"
    files = files_of(bundle)
    assert seal["files"] == {
        n: hashlib.sha256(b).hexdigest() for n, b in files.items() if n != "seal.json"
    }
    h = hashlib.sha256(b"sre_gym.bundle/1")
    for name in sorted(seal["files"]):
        h.update(f"{name}\0{seal['files'][name]}\n".encode())
    assert seal["digest"] == h.hexdigest() == verify(bundle)
    # events are one compact, key-sorted JSON object per line, gzip with a fixed mtime
    raw = gzip.decompress(files["events.jsonl.gz"]).decode()
    lines = raw.splitlines()
    assert len(lines) == 5 and raw.endswith("\n")
    assert all(
        json.loads(x) == json.loads(json.dumps(json.loads(x), sort_keys=True)) for x in lines
    )
    assert files["events.jsonl.gz"][4:8] == b"\0\0\0\0"  # gzip MTIME field


def test_same_evidence_gives_byte_identical_files(tmp_path):
    a = write_bundle(small_evidence(), tmp_path / "a")
    b = write_bundle(small_evidence(), tmp_path / "b")
    assert a.name == b.name
    assert files_of(a) == files_of(b)
    c = write_bundle(small_evidence(seed=4), tmp_path / "a")
    assert c.name != a.name and c.name.startswith("online-boutique-s4-")


def test_different_evidence_gives_a_different_digest(tmp_path):
    ev = small_evidence()
    ev.arrays["probe"][0, 30] = 0
    assert write_bundle(ev, tmp_path).name != write_bundle(small_evidence(), tmp_path).name


# ---------------------------------------------------------------------------------- tampering


def _all_files(path: Path) -> list[str]:
    return sorted(files_of(path))


def test_every_single_bit_flip_in_every_file_is_detected(tmp_path):
    path = write_bundle(small_evidence(), tmp_path)
    originals = files_of(path)
    assert len(originals) == 6
    checked = 0
    for name, data in originals.items():
        target = path / name
        for i in range(len(data)):
            for mask in (0x01, 0xFF) if i % 5 == 0 else (0x01,):
                bad = bytearray(data)
                bad[i] ^= mask
                target.write_bytes(bytes(bad))
                with pytest.raises(BundleError):
                    verify(path)
                checked += 1
        target.write_bytes(data)
    assert checked >= sum(len(d) for d in originals.values())
    verify(path)  # restored


@pytest.mark.parametrize(
    "name",
    [
        "manifest.json",
        "events.jsonl.gz",
        "arrays/probe.npy",
        "arrays/artifact.npy",
        "arrays/entry.npy",
    ],
)
def test_changed_file_is_named(bundle, name):
    p = bundle / name
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x20
    p.write_bytes(bytes(data))
    with pytest.raises(
        BundleError,
        match=rf"{name}: content changed \(sha256 [0-9a-f]{{16}}\.\.\., sealed [0-9a-f]{{16}}\.\.\.\)",
    ):
        verify(bundle)
    with pytest.raises(BundleError):
        read_bundle(bundle)


def test_missing_file(bundle):
    (bundle / "arrays" / "entry.npy").unlink()
    with pytest.raises(BundleError, match=r"missing files: arrays/entry\.npy$"):
        verify(bundle)


def test_extra_file(bundle):
    (bundle / "notes.txt").write_text("hi")
    (bundle / "arrays" / "extra.npy").write_bytes(b"x")
    with pytest.raises(
        BundleError, match=r"files not covered by the seal: arrays/extra\.npy, notes\.txt$"
    ):
        verify(bundle)


def test_missing_seal(bundle):
    (bundle / "seal.json").unlink()
    with pytest.raises(BundleError, match=r"no seal\.json; the bundle is incomplete"):
        verify(bundle)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", r"seal\.json: not valid JSON"),
        (b"\xff\xfe", r"seal\.json: not valid JSON"),
        (b"[]", r"seal\.json: not a sre_gym\.bundle/1 seal"),
        (b'{"format": "other/1", "files": {}}', r"not a sre_gym\.bundle/1 seal"),
        (b'{"format": "sre_gym.bundle/1", "files": []}', r"not a sre_gym\.bundle/1 seal"),
    ],
)
def test_corrupted_seal(bundle, content, message):
    (bundle / "seal.json").write_bytes(content)
    with pytest.raises(BundleError, match=message):
        verify(bundle)


def test_seal_digest_mismatch(bundle):
    seal = json.loads((bundle / "seal.json").read_text())
    seal["digest"] = "0" * 64
    (bundle / "seal.json").write_text(json.dumps(seal))
    with pytest.raises(BundleError, match=r"seal\.json: digest does not match the file hashes"):
        verify(bundle)


def test_not_a_directory(tmp_path):
    with pytest.raises(BundleError, match="not a bundle directory"):
        verify(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(BundleError, match="not a bundle directory"):
        read_bundle(tmp_path / "file")


def _reseal(path: Path) -> None:
    """Forge a consistent seal for the current files (what an attacker or a bug could produce)."""
    files = {
        n: hashlib.sha256(b).hexdigest() for n, b in files_of(path).items() if n != "seal.json"
    }
    seal = {"format": B.FORMAT, "files": files, "digest": B._chain(files)}
    (path / "seal.json").write_text(json.dumps(seal))


def test_truncated_gzip(bundle):
    p = bundle / "events.jsonl.gz"
    p.write_bytes(p.read_bytes()[:-12])
    with pytest.raises(BundleError, match=r"events\.jsonl\.gz: content changed"):
        verify(bundle)
    _reseal(bundle)
    verify(bundle)  # the forged seal is consistent ...
    with pytest.raises(BundleError, match=r"sealed but unreadable"):
        read_bundle(bundle)  # ... but the content is not a whole event log


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "events.jsonl.gz",
            gzip.compress(b'{"type": "alert", "t": 1}\nnot json\n', mtime=0),
            "sealed but unreadable",
        ),
        # mtime=0: a clock in the header would give each xdist worker other test ids
        ("events.jsonl.gz", gzip.compress(b"\xff\xfe\n", mtime=0), "sealed but unreadable"),
        ("events.jsonl.gz", b"plain text", "sealed but unreadable"),
        ("arrays/probe.npy", b"\x93NUMPY garbage", "sealed but unreadable"),
        ("manifest.json", b"{", "sealed but unreadable"),
        (
            "manifest.json",
            b'{"format": "sre_gym.bundle/0"}',
            r"manifest format 'sre_gym\.bundle/0' is not sre_gym\.bundle/1",
        ),
    ],
)
def test_resealed_but_malformed_content(bundle, name, content, message):
    (bundle / name).write_bytes(content)
    _reseal(bundle)
    verify(bundle)
    with pytest.raises(BundleError, match=message):
        read_bundle(bundle)


def test_pickled_arrays_are_refused(bundle):
    import io

    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    (bundle / "arrays" / "probe.npy").write_bytes(buf.getvalue())
    _reseal(bundle)
    with pytest.raises(BundleError, match="sealed but unreadable"):
        read_bundle(bundle)


def test_bundle_error_is_a_value_error():
    assert issubclass(BundleError, ValueError)


# ---------------------------------------------------------------------------------- atomic writes


def test_no_temporary_directory_is_left(tmp_path):
    root = tmp_path / "runs"
    write_bundle(small_evidence(), root)
    write_bundle(small_evidence(seed=9), root)
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".")) == []
    assert len(list(root.iterdir())) == 2


def test_an_identical_bundle_is_reused(tmp_path):
    first = write_bundle(small_evidence(), tmp_path)
    stamp = {p: p.stat().st_mtime_ns for p in first.rglob("*")}
    inode = first.stat().st_ino
    again = write_bundle(small_evidence(), tmp_path)
    assert again == first and first.stat().st_ino == inode
    assert {p: p.stat().st_mtime_ns for p in first.rglob("*")} == stamp


def test_a_damaged_bundle_at_the_target_is_replaced(tmp_path):
    first = write_bundle(small_evidence(), tmp_path)
    (first / "manifest.json").write_text("{}")
    again = write_bundle(small_evidence(), tmp_path)
    assert again == first
    verify(again)
    assert read_bundle(again).manifest["seed"] == 3


def test_a_stale_temporary_directory_is_cleared(tmp_path):
    first = write_bundle(small_evidence(), tmp_path)
    shutil.rmtree(first)
    stale = tmp_path / f".tmp-{first.name}-{os.getpid()}"
    stale.mkdir()
    (stale / "junk").write_text("half")
    again = write_bundle(small_evidence(), tmp_path)
    assert not stale.exists()
    assert set(files_of(again)) == {
        "manifest.json",
        "events.jsonl.gz",
        "arrays/probe.npy",
        "arrays/artifact.npy",
        "arrays/entry.npy",
        "seal.json",
    }


def test_a_crash_before_the_rename_leaves_no_bundle(tmp_path, monkeypatch):
    def crash(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(B.os, "replace", crash)
    with pytest.raises(OSError, match="disk on fire"):
        write_bundle(small_evidence(), tmp_path)
    visible = [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
    assert (
        visible == []
    )  # only a hidden temporary directory, never a half bundle under the final name
    monkeypatch.undo()
    path = write_bundle(small_evidence(), tmp_path)
    verify(path)


def test_a_crash_while_writing_files_leaves_no_bundle(tmp_path, monkeypatch):
    calls = {"n": 0}
    real_fsync = os.fsync

    def flaky(fd):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("power cut")
        real_fsync(fd)

    monkeypatch.setattr(B.os, "fsync", flaky)
    with pytest.raises(OSError, match="power cut"):
        write_bundle(small_evidence(), tmp_path)
    assert [p for p in tmp_path.iterdir() if not p.name.startswith(".")] == []


def test_encode_is_deterministic():
    a, b = B.encode(small_evidence()), B.encode(small_evidence())
    assert a == b
    assert list(a) == [
        "manifest.json",
        "events.jsonl.gz",
        "arrays/artifact.npy",
        "arrays/entry.npy",
        "arrays/probe.npy",
    ]


# ---------------------------------------------------------------------------------- a real run


@pytest.fixture(scope="module")
def episode_bundle(tmp_path_factory):
    """One real (no-op) episode written by the env; the bundle and the online scorecard."""
    import gymnasium as gym

    import sre_gym  # noqa: F401

    root = tmp_path_factory.mktemp("runs")
    env = gym.make("SREMarathon-v0", bundle_dir=str(root))
    obs, info = env.reset(seed=4)
    done = False
    step = 0
    while not done:
        action = [{"tool": "k8s_get", "args": {"kind": "secrets"}}] if step == 3 else []
        obs, _, done, _, info = env.step(action)
        step += 1
    env.close()
    return Path(info["bundle"]), info["scorecard"], env.unwrapped.evidence


def test_real_bundle_round_trip_and_offline_score(episode_bundle):
    from sre_gym.scoring import score_bundle

    path, card, ev = episode_bundle
    verify(path)
    back = read_bundle(path)
    assert back.manifest == ev.manifest and back.events == ev.events
    assert set(back.arrays) == {"probe", "artifact", "entry", "entry_noaction"}
    for k in back.arrays:
        np.testing.assert_array_equal(back.arrays[k], ev.arrays[k])
    assert score_bundle(path) == card
    assert card["forbidden_attempts"] == 1 and card["marathon_score"] == -1.0


def test_real_bundle_detects_flips_in_every_file(episode_bundle, tmp_path):
    src, _, _ = episode_bundle
    path = tmp_path / src.name
    shutil.copytree(src, path)
    rng = np.random.default_rng(0)
    for name, data in files_of(path).items():
        positions = {0, len(data) - 1, len(data) // 2, *rng.integers(0, len(data), 20).tolist()}
        for i in positions:
            bad = bytearray(data)
            bad[i] ^= 0x01
            (path / name).write_bytes(bytes(bad))
            with pytest.raises(BundleError):
                verify(path)
        (path / name).write_bytes(data)
    verify(path)


def test_json_artifacts_round_trip_and_stay_inside_the_bundle(tmp_path):
    ev = small_evidence()
    ev.artifacts = {"meta.json": {"a": 1}, "challenge/receipt.json": {"pass": True}}
    path = write_bundle(ev, tmp_path)
    assert (path / "artifacts" / "challenge" / "receipt.json").exists()
    back = read_bundle(path)
    assert back.artifacts == ev.artifacts
    (path / "artifacts" / "meta.json").write_text('{"a": 2}')
    with pytest.raises(BundleError):
        verify(path)
    ev.artifacts = {"../escape.json": {}}
    with pytest.raises(BundleError, match="leaves the bundle"):
        write_bundle(ev, tmp_path / "x")


def test_marathon_bundles_have_no_artifacts_folder(tmp_path):
    path = write_bundle(small_evidence(), tmp_path)
    assert not (path / "artifacts").exists() and read_bundle(path).artifacts == {}

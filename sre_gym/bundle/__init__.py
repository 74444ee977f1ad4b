"""Sealed evidence bundles: write atomically, verify every byte, read back for offline scoring.

Layout of a bundle directory (see docs/bundle-format.md):
  manifest.json       release, app, seed, env and scoring config (with its version)
  events.jsonl.gz     append-only event log, one JSON object per line (gzip with a fixed mtime)
  arrays/<name>.npy   per-tick evidence arrays (symptom probes, artifact state, entry traffic)
  artifacts/<path>    JSON documents (the arena's Arena-shaped evidence; absent for the marathon)
  seal.json           SHA-256 of every other file, chained into one digest
Every file is written into a temporary directory that is renamed into place only once complete, so a
crash never leaves a directory that looks like a bundle.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
from pathlib import Path

import numpy as np

from sre_gym.bundle.evidence import Evidence

SEAL = "seal.json"
FORMAT = "sre_gym.bundle/1"


class BundleError(ValueError):
    """A bundle is missing, incomplete, altered or malformed."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _chain(files: dict[str, str]) -> str:
    h = hashlib.sha256(FORMAT.encode())
    for name in sorted(files):
        h.update(f"{name}\0{files[name]}\n".encode())
    return h.hexdigest()


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def encode(evidence: Evidence) -> dict[str, bytes]:
    """Every file of the bundle (except the seal) as bytes; deterministic for the same evidence."""
    files = {
        "manifest.json": (json.dumps(evidence.manifest, sort_keys=True, indent=2) + "\n").encode()
    }
    raw = evidence.events_jsonl().encode()
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=6) as gz:
        gz.write(raw)
    files["events.jsonl.gz"] = buf.getvalue()
    for name, arr in sorted(evidence.arrays.items()):
        files[f"arrays/{name}.npy"] = _npy(arr)
    for name, doc in sorted(evidence.artifacts.items()):
        if ".." in name.split("/") or name.startswith("/"):
            raise BundleError(f"artifact path {name!r} leaves the bundle")
        files[f"artifacts/{name}"] = (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode()
    return files


def write_bundle(evidence: Evidence, bundle_dir: str | os.PathLike) -> Path:
    """Seal ``evidence`` into ``bundle_dir/<app>-s<seed>-<digest>`` and return that path."""
    files = encode(evidence)
    hashes = {name: _sha(data) for name, data in files.items()}
    digest = _chain(hashes)
    seal = {"format": FORMAT, "files": hashes, "digest": digest}
    files[SEAL] = (json.dumps(seal, sort_keys=True, indent=2) + "\n").encode()
    root = Path(bundle_dir)
    root.mkdir(parents=True, exist_ok=True)
    man = evidence.manifest
    final = root / f"{man['app']}-s{man['seed']}-{digest[:12]}"
    if final.exists():
        try:
            verify(final)
            return final  # the same sealed content is already there
        except BundleError:
            shutil.rmtree(final)
    tmp = root / f".tmp-{final.name}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    for name, data in files.items():
        p = tmp / name
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, final)
    return final


def _listing(path: Path) -> set[str]:
    return {p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()}


def verify(path: str | os.PathLike) -> str:
    """Check every file against the seal; returns the bundle digest or raises ``BundleError``."""
    path = Path(path)
    if not path.is_dir():
        raise BundleError(f"{path}: not a bundle directory")
    try:
        seal = json.loads((path / SEAL).read_text())
    except FileNotFoundError as e:
        raise BundleError(f"{path}: no {SEAL}; the bundle is incomplete") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BundleError(f"{path}/{SEAL}: not valid JSON ({e})") from e
    if (
        not isinstance(seal, dict)
        or seal.get("format") != FORMAT
        or not isinstance(seal.get("files"), dict)
    ):
        raise BundleError(f"{path}/{SEAL}: not a {FORMAT} seal")
    files: dict[str, str] = seal["files"]
    present = _listing(path) - {SEAL}
    missing = sorted(set(files) - present)
    extra = sorted(present - set(files))
    if missing:
        raise BundleError(f"{path}: missing files: {', '.join(missing)}")
    if extra:
        raise BundleError(f"{path}: files not covered by the seal: {', '.join(extra)}")
    for name in sorted(files):
        got = _sha((path / name).read_bytes())
        if got != files[name]:
            raise BundleError(
                f"{path}/{name}: content changed (sha256 {got[:16]}..., sealed {str(files[name])[:16]}...)"
            )
    digest = _chain(files)
    if digest != seal.get("digest"):
        raise BundleError(f"{path}/{SEAL}: digest does not match the file hashes")
    return digest


def read_bundle(path: str | os.PathLike) -> Evidence:
    """Verify and load a bundle back into ``Evidence``."""
    path = Path(path)
    verify(path)
    try:
        manifest = json.loads((path / "manifest.json").read_text())
        raw = gzip.decompress((path / "events.jsonl.gz").read_bytes()).decode()
        events = [json.loads(line) for line in raw.splitlines() if line]
        arrays = {
            p.stem: np.load(p, allow_pickle=False) for p in sorted((path / "arrays").glob("*.npy"))
        }
        art_root = path / "artifacts"
        artifacts = {
            p.relative_to(art_root).as_posix(): json.loads(p.read_text())
            for p in sorted(art_root.rglob("*"))
            if p.is_file()
        }
    except (OSError, ValueError, EOFError) as e:
        raise BundleError(f"{path}: sealed but unreadable ({e})") from e
    if manifest.get("format") != FORMAT:
        raise BundleError(f"{path}: manifest format {manifest.get('format')!r} is not {FORMAT}")
    return Evidence(manifest=manifest, events=events, arrays=arrays, artifacts=artifacts)


__all__ = ["BundleError", "Evidence", "read_bundle", "verify", "write_bundle"]

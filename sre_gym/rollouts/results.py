"""Rollout results: records, their flat table, and the append-only file a rerun resumes from.

A record is what ``run_episode`` returns (agent, app, seed, release, scorecard, return, bundle). A
results file holds one record per finished (release, agent, app, seed): JSON Lines by default
(appended and flushed as each episode finishes, so a crash loses at most the episode in progress and
a torn last line is ignored on reading), or Parquet when the name ends in ``.parquet`` (needs pandas
and pyarrow; the file is rewritten atomically after each episode). pandas is imported only by
``to_pandas`` and the Parquet store.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sre_gym.scoring.leaderboard import flatten

Key = tuple[str, str, str, int, str, bool]  # release, agent, app, seed, schedule, evaluation
ID_COLUMNS = ("agent", "app", "seed", "schedule")


def record_key(rec: dict[str, Any]) -> Key:
    """What identifies a record: an evaluation-mode run of a seed is another world than the
    training run of the same seed (one results file per evaluation key: the key is never stored)."""
    return (
        str(rec.get("release", "")),
        str(rec["agent"]),
        str(rec["app"]),
        int(rec["seed"]),
        str(rec.get("schedule", "marathon")),  # records from before profiles are marathons
        bool(rec.get("evaluation", False)),
    )


def row(rec: dict[str, Any]) -> dict[str, Any]:
    """One flat table row: agent, app, seed, schedule, then every scorecard key (nested ones dotted)."""
    return {
        "agent": rec["agent"],
        "app": rec["app"],
        "seed": int(rec["seed"]),
        "schedule": str(rec.get("schedule", "marathon")),
        **flatten(rec["scorecard"]),
    }


@dataclass
class RolloutResults:
    """Records of one rollout, ordered as requested (apps, then seeds)."""

    records: list[dict[str, Any]]
    executed: int = 0  # episodes run by this call
    skipped: int = 0  # episodes found finished in ``out`` and not run again
    elapsed_s: float = 0.0  # wall-clock time of the call (not part of the records)
    out: str | None = None

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records)

    def rows(self) -> list[dict[str, Any]]:
        return [row(r) for r in self.records]

    def scores(self, key: str = "net_score") -> dict[tuple[str, int], float]:
        """(app, seed) -> net_score (``key="marathon_score"``: the paper's score)."""
        return {(r["app"], int(r["seed"])): float(r["scorecard"][key]) for r in self.records}

    def to_pandas(self) -> Any:
        """A DataFrame with one row per (app, seed): agent, app, seed and every scorecard key."""
        import pandas as pd

        rows = self.rows()
        cols = list(ID_COLUMNS)
        for r in rows:
            cols += [k for k in r if k not in cols]
        return pd.DataFrame(rows, columns=cols)

    def summary(self, key: str = "net_score") -> dict[str, Any]:
        """Mean, min and max net_score (or the scorecard's ``key``) over the records."""
        s = [float(r["scorecard"][key]) for r in self.records]
        if not s:
            return {"episodes": 0, "mean": None, "min": None, "max": None}
        return {"episodes": len(s), "mean": sum(s) / len(s), "min": min(s), "max": max(s)}


# ---------------------------------------------------------------------- stores
class JsonlStore:
    """Append-only JSON Lines file of records."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def load(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        out = []
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line torn by a crash mid-write: that episode runs again
                if isinstance(rec, dict) and {"agent", "app", "seed", "scorecard"} <= rec.keys():
                    out.append(rec)
        return out

    def append(self, rec: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(rec, sort_keys=True, ensure_ascii=True, separators=(",", ":")) + "\n"
        with open(self.path, "a+b") as f:
            if f.tell() > 0:  # never glue a record onto a torn last line
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    line = "\n" + line
            f.write(line.encode())
            f.flush()
            os.fsync(f.fileno())


class ParquetStore:
    """A Parquet table: the flat rows plus each full record as JSON (column ``record``)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._records: list[dict[str, Any]] | None = None

    def load(self) -> list[dict[str, Any]]:
        if self._records is None:
            self._records = []
            if self.path.exists():
                import pandas as pd

                df = pd.read_parquet(self.path, columns=["record"])
                self._records = [json.loads(s) for s in df["record"]]
        return list(self._records)

    def append(self, rec: dict[str, Any]) -> None:
        import pandas as pd

        records = [*self.load(), rec]
        self._records = records
        df = RolloutResults(records).to_pandas()
        df["record"] = [json.dumps(r, sort_keys=True) for r in records]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        pd.DataFrame(df).to_parquet(tmp, index=False)
        os.replace(tmp, self.path)


def open_store(path: str | os.PathLike) -> JsonlStore | ParquetStore:
    """The store for ``path``: Parquet for ``*.parquet``, JSON Lines otherwise."""
    return ParquetStore(path) if str(path).endswith(".parquet") else JsonlStore(path)


def load_results(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> RolloutResults:
    """Every record in one or more results files (last record wins for a repeated key)."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    recs: dict[Key, dict[str, Any]] = {}
    for p in paths:
        for r in open_store(p).load():
            recs[record_key(r)] = r
    return RolloutResults(list(recs.values()))

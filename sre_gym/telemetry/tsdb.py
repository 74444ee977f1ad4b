"""In-memory time-series store on a fixed scrape grid.

Every live series is scraped at every tick (``t0 + i * tick_s``). A family (one metric name) keeps a
2-D float64 array ``[series, tick]``; ``NaN`` means *no sample at that tick*. Because every live series
is scraped every tick, a missing sample after a present one is a Prometheus staleness marker: the
series is absent at that instant (this is how kube-state-metrics series vanish when a pod goes away).

The simulator writes one column per family per tick with a single fancy-index assignment; the PromQL
engine reads rectangular slices. Reading never mutates anything.

A family may be stored in a narrower type than float64: float16 for 0/1 indicators and small counts
(kube-state-metrics' phase, readiness, info, reason and restart series: one per pod and variant,
about half of an episode's samples), which holds NaN and the integers up to 2,048 exactly in a
quarter of the space; float32 for counters of whole events, exact up to 2**24. Readers widen what
they take (``as_float64``), so every query sees float64 as before, and a write of a value the
narrow type cannot hold exactly (a counter past 2**24) widens the family to float64 first: the
storage type never changes a sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

LabelSet = tuple[tuple[str, str], ...]  # sorted (name, value) pairs, without __name__


def nan_block(rows: int, cols: int, dtype: type = np.float64) -> np.ndarray:
    """A ``[rows, cols]`` array of NaN (float64 unless ``dtype`` says otherwise)."""
    return np.full((rows, cols), np.nan, dtype=dtype)


def as_float64(samples: np.ndarray) -> np.ndarray:
    """Samples read from a family, as float64 (a copy only when the family stores a narrower
    type)."""
    return samples if samples.dtype == np.float64 else samples.astype(np.float64)


def size_class(rows: int) -> int:
    """Rows of the block a family that reached ``rows`` rows gets: a power of two up to 128, then
    a multiple of 64, so that runs with a few series more or less ask for the same sizes (a pod
    family of 600 rows gets 640, not 1,024: at 401 ticks that is 1.2 MB less)."""
    if rows <= 128:
        return max(8, 1 << max(rows - 1, 0).bit_length())
    return -(-rows // 64) * 64


class Family:
    """All series of one metric name.

    ``row_hints`` (optional, owned by the writer) maps family names to the rows they reached in
    earlier runs: the first time the sample block must grow, it grows to that size at once, so a
    family that gains thousands of series (one per pod) is allocated twice instead of growing,
    copying and NaN-filling as it goes, and a store whose families never grow (a run read only
    for its entry traffic) stays small. The family records its own final size there. Sizes never
    change what a query sees. Blocks come from the heap: with their sizes repeating from run to run
    (``size_class``), the memory freed by one episode serves the next, and a process's resident
    memory levels off instead of fragmenting.
    """

    __slots__ = (
        "name",
        "label_names",
        "rows",
        "index",
        "data",
        "version",
        "_cap_ticks",
        "_order",
        "_hints",
        "label_values",
        "query_labels",
        "_pairs",
        "dtype",
    )

    def __init__(
        self,
        name: str,
        label_names: Sequence[str],
        cap_ticks: int,
        row_hints: dict[str, int] | None = None,
        dtype: type = np.float64,
    ) -> None:
        self.name = name
        self.label_names: tuple[str, ...] = tuple(label_names)
        self.rows: list[LabelSet] = []
        self.label_values: list[tuple[str, ...]] = []  # per row, in ``label_names`` order
        self.index: dict[tuple[str, ...], int] = {}
        self._cap_ticks = cap_ticks
        self._hints = row_hints
        self.dtype = np.dtype(dtype)  # as declared; ``data`` may have been widened since
        self.data = nan_block(8, cap_ticks, dtype)
        self.version = 0  # bumped whenever a series is added (selection caches key on it)
        # per row, filled lazily by the query engine: the labels with the metric name and without
        # empty values, shared by every selector that scans this family
        self.query_labels: list[tuple[tuple[str, str], ...]] = []
        # label names are distinct, so a series' sorted pairs follow the sorted names
        self._order = tuple(sorted(range(len(self.label_names)), key=self.label_names.__getitem__))
        # one (name, value) pair per distinct value of each label, shared by the rows that have
        # it: pod series repeat job, namespace and container, and a marathon creates thousands
        self._pairs: tuple[dict[str, tuple[str, str]], ...] = tuple({} for _ in self.label_names)

    def row(self, values: tuple[str, ...]) -> int:
        """Row of the series with these label values (in ``label_names`` order); created if new."""
        r = self.index.get(values)
        if r is not None:
            return r
        if len(values) != len(self.label_names):
            raise ValueError(
                f"{self.name}: expected {len(self.label_names)} label values, got {values}"
            )
        r = len(self.rows)
        if r == self.data.shape[0]:
            # double while small, then grow by a quarter: a family of pod series reaches
            # thousands of rows, and a doubled block would be up to half empty
            rows = 2 * r if r < 1024 else r + r // 4
            if self._hints is not None and self._hints.get(self.name, 0) > r:
                rows = max(rows, size_class(self._hints[self.name]))
            grown = nan_block(rows, self._cap_ticks, self.data.dtype)
            grown[:r] = self.data
            self.data = grown
        self.index[values] = r
        self.label_values.append(values)
        names, pairs = self.label_names, self._pairs
        labels = []
        for i in self._order:
            v = values[i]
            pair = pairs[i].get(v)
            if pair is None:
                pair = pairs[i][v] = (names[i], v)
            labels.append(pair)
        self.rows.append(tuple(labels))
        self.version += 1
        if self._hints is not None and r >= self._hints.get(self.name, 0):
            self._hints[self.name] = r + 1
        return r

    def rows_for(self, values: Iterable[tuple[str, ...]]) -> np.ndarray:
        return np.fromiter((self.row(v) for v in values), dtype=np.intp)

    @property
    def n_series(self) -> int:
        return len(self.rows)


class TSDB:
    """A fixed-grid store: ``capacity`` ticks of ``tick_s`` seconds starting at ``t0``."""

    def __init__(
        self,
        *,
        t0: int = 0,
        tick_s: int = 15,
        capacity: int = 400,
        row_hints: dict[str, int] | None = None,
    ) -> None:
        self.t0 = int(t0)
        self.tick_s = int(tick_s)
        self.capacity = int(capacity)
        self.n_ticks = 0  # ticks written so far (columns 0..n_ticks-1 are final)
        self.families: dict[str, Family] = {}
        self.row_hints = row_hints  # see Family

    # -- writing (simulator side) -------------------------------------------------------------
    def family(self, name: str, label_names: Sequence[str], dtype: type = np.float64) -> Family:
        """The family ``name`` (created if new); ``dtype`` is how its samples are stored at first:
        float64; float16 for a family whose values are integers up to 2,048; float32 for counts
        of whole events (see ``write``)."""
        fam = self.families.get(name)
        if fam is None:
            fam = self.families[name] = Family(
                name, label_names, self.capacity, self.row_hints, dtype
            )
        elif fam.label_names != tuple(label_names):
            raise ValueError(f"family {name} already has labels {fam.label_names}")
        elif fam.dtype != dtype:
            raise ValueError(f"family {name} is already declared {fam.dtype}, not {dtype}")
        return fam

    def write(self, fam: Family, tick: int, rows: np.ndarray, values: np.ndarray) -> None:
        """Set samples of ``rows`` at ``tick``. Rows not written stay NaN (absent). A value the
        family's narrow type cannot hold exactly widens the family to float64 first."""
        if tick >= self.capacity:
            raise IndexError(f"tick {tick} beyond TSDB capacity {self.capacity}")
        if fam.data.dtype != np.float64:
            stored = np.asarray(values).astype(fam.data.dtype)
            if (stored == values).all():
                values = stored
            else:  # (a NaN written, too: widening keeps it, and it is rare)
                fam.data = fam.data.astype(np.float64)
        fam.data[rows, tick] = values

    def release(self) -> None:
        """Let go of every sample block at once, not when a garbage collection finds this store
        (the next episode's blocks, of the same sizes, reuse the memory). The store must not be
        read afterwards."""
        for fam in self.families.values():
            fam.data = np.empty((0, 0))
        self.families = {}
        self.n_ticks = 0

    def commit(self, tick: int) -> None:
        """Mark columns up to and including ``tick`` as final (visible to queries)."""
        self.n_ticks = max(self.n_ticks, tick + 1)

    # -- reading (engine side) ----------------------------------------------------------------
    def time_of(self, tick: int) -> int:
        return self.t0 + tick * self.tick_s

    def tick_at_or_before(self, t: float) -> int:
        """Index of the latest tick with timestamp <= t (may be -1 or beyond n_ticks-1)."""
        return int(np.floor((t - self.t0) / self.tick_s))

    def select(
        self, name: str | None, matchers: Sequence[tuple[str, str, str]]
    ) -> list[tuple[Family, int]]:
        """Series matching ``name`` (or any name, if None) and label matchers.

        ``matchers`` are ``(label, op, value)`` with op in ``=``, ``!=``, ``=~``, ``!~``; a matcher on
        ``__name__`` selects by metric name. Regexes are fully anchored, as in Prometheus.
        """
        import re

        compiled = []
        names: list[str]
        name_ms = [m for m in matchers if m[0] == "__name__"]
        label_ms = [m for m in matchers if m[0] != "__name__"]
        for lab, op, val in label_ms:
            rx = re.compile(f"^(?:{val})$") if op in ("=~", "!~") else None
            compiled.append((lab, op, val, rx))
        if name is not None:
            names = [name] if name in self.families else []
        else:
            names = sorted(self.families)
        out: list[tuple[Family, int]] = []
        for n in names:
            if not all(_match(n, op, val) for _, op, val in name_ms):
                continue
            fam = self.families[n]
            for r, labels in enumerate(fam.rows):
                d = dict(labels)
                if all(_match_c(d.get(lab, ""), op, val, rx) for lab, op, val, rx in compiled):
                    out.append((fam, r))
        return out

    def label_names(self) -> list[str]:
        out = {"__name__"}
        for fam in self.families.values():
            out.update(fam.label_names)
        return sorted(out)

    def metric_names(self) -> list[str]:
        return sorted(n for n, f in self.families.items() if f.n_series)


def _match(value: str, op: str, val: str) -> bool:
    import re

    rx = re.compile(f"^(?:{val})$") if op in ("=~", "!~") else None
    return _match_c(value, op, val, rx)


def _match_c(value: str, op: str, val: str, rx) -> bool:
    if op == "=":
        return value == val
    if op == "!=":
        return value != val
    if op == "=~":
        return rx.match(value) is not None
    if op == "!~":
        return rx.match(value) is None
    raise ValueError(f"unknown matcher op {op!r}")

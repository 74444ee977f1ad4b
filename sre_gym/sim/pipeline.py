"""The build pipeline: a source patch goes through apply, lint, unit tests and an image build.

Change-delivered faults and ordinary deploys arrive as commits whose ``diff`` applies to a service's
source tree (``source_trees``); the agent repairs by submitting a diff that goes through the same stages:

``apply``       the unified diff is parsed and applied with context verification (``diffs``;
                ``PatchError`` names the file and the hunk that does not apply, and where);
``lint``        each changed file is checked by the linter of its file type (``lint.lint_file``);
``unit-tests``  every unit-test predicate of the service must hold on the patched tree;
``build``       the image is tagged with the commit: ``<repository>:<sha[:12]>``.

Patches apply to the service's repository head, and images are built from it: a built image carries
every defect committed to the head whose change's ``fix`` predicate the tree does not satisfy, until a
revert takes the change out; the caller rolls the built image out. ``Pipeline`` keeps the per-run
heads as changes deploy and revert. The module is pure Python and deterministic (no wall clock):
commit shas derive from (release, app, seed, service, time, diff).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Literal

from sre_gym.catalogs.schema import MANIFEST_DIR, Change, Defect, manifest_path
from sre_gym.rng import stable_hash
from sre_gym.sim.diffs import (
    PatchError,
    apply_diff,
    changed_files,
    merge_diff,
    parse_diff,
    tree_diff,
)
from sre_gym.sim.lint import lint_tree
from sre_gym.sim.source_trees import (
    ServiceMeta,
    Tree,
    base_tree,
    fix_holds,
    manifest_settings,
    run_unit_tests,
    service_meta,
    services_with_trees,
    with_env,
)

StageName = Literal["apply", "lint", "unit-tests", "build"]


@dataclass
class BuildResult:
    ok: bool
    stages: list[dict[str, str]]  # {stage, status: passed|failed|skipped, detail}
    sha: str
    image: str | None
    defect: Defect | None
    message: str
    files: list[str] = field(default_factory=list)
    config: dict | None = None  # manifest settings when the patch edits kubernetes/<service>.yaml
    carrier: Change | None = None  # the change whose defect the image carries

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "stages": [dict(s) for s in self.stages],
            "sha": self.sha,
            "image": self.image,
            "message": self.message,
            "files": list(self.files),
        }


def _stage(stage: StageName, status: str, detail: str) -> dict[str, str]:
    return {"stage": stage, "status": status, "detail": detail}


def check_change(app: str, change: Change, tree: Tree | None = None) -> list[dict[str, str]]:
    """Run apply/lint/unit-tests for a corpus change on ``tree`` (default: the base tree, strict)."""
    meta = service_meta(app, change.service)
    base = base_tree(app, change.service) if tree is None else tree
    stages = []
    try:
        new, notes = apply_diff(base, change.diff, strict=tree is None)
    except PatchError as e:
        return [_stage("apply", "failed", str(e))]
    stages.append(
        _stage("apply", "passed", "; ".join(notes) or f"{len(changed_files(change.diff))} file(s)")
    )
    issues = lint_tree(new, changed_files(change.diff))
    if issues:
        return [*stages, _stage("lint", "failed", "\n".join(map(str, issues)))]
    stages.append(_stage("lint", "passed", meta.lint))
    fails = run_unit_tests(meta, new)
    if fails:
        return [*stages, _stage("unit-tests", "failed", "\n".join(fails))]
    stages.append(_stage("unit-tests", "passed", f"{len(meta.tests)} passed"))
    return stages


class Pipeline:
    """Per-run source state of one app: each service's repository head, and the builds from it.

    Every deploy, revert and successful patch is a commit on the service's head; an image is built
    from the head as it stands, so a defect committed once is in every later build until a revert
    takes it out or a patch satisfies its fix predicate (``carried``). A corpus change is applied
    as ``git cherry-pick`` would: as written when it applies, else merged three-way with what the
    head gained since. Config and image changes edit the manifest in the head and build nothing.
    """

    def __init__(self, app: str, release: str, seed: int) -> None:
        self.app = app
        self.release = release
        self.seed = int(seed)
        services_with_trees(app)  # fails early for an app without source trees
        self._head: dict[str, Tree] = {}
        self._carried: dict[str, list[Change]] = {}  # defect changes still in each head
        # sha -> (service, head before the commit, the diff as committed, the corpus change if any)
        self._commits: dict[str, tuple[str, Tree, str, Change | None]] = {}

    # ---------------------------------------------------------------------------- trees
    def meta(self, service: str) -> ServiceMeta:
        return service_meta(self.app, service)

    def head(self, service: str) -> Tree:
        h = self._head.get(service)
        return h if h is not None else base_tree(self.app, service)

    def files(self, service: str) -> list[str]:
        return sorted(self.head(service))

    def read(self, service: str, path: str) -> str:
        tree = self.head(service)
        p = path.lstrip("/")
        if p.startswith(("a/", "b/")) and p not in tree and p[2:] in tree:
            p = p[2:]
        if p not in tree:
            near = difflib.get_close_matches(p, list(tree), n=3)
            hint = (
                f"; did you mean {', '.join(near)}?"
                if near
                else f"; files: {', '.join(sorted(tree))}"
            )
            raise KeyError(f"{service}: no file {path!r} in the repository{hint}")
        return tree[p]

    def defect(self, service: str, tree: Tree | None = None) -> tuple[Defect | None, Change | None]:
        """The defect a build of ``tree`` (default: the head) carries, and the change it comes
        from: a defect change in the head whose fix predicate does not hold on the tree."""
        tree = self.head(service) if tree is None else tree
        for ch in self._carried.get(service, []):
            if ch.fix is None or not fix_holds(ch.fix, tree):
                return ch.defect, ch
        return None, None

    # ---------------------------------------------------------------------------- deploys
    def commit(self, change: Change, sha: str) -> str:
        """Commit a corpus change to its service's head; returns the diff as committed (the
        change's own diff, or the merged one when the head had moved under it)."""
        svc = change.service
        head = self.head(svc)
        try:
            if not change.diff.strip():  # a retag, or settings kept outside the repository
                new, diff = head, ""
            else:
                new, _ = apply_diff(head, change.diff)
                diff = change.diff
        except PatchError:
            try:
                new = merge_diff(head, change.diff, base_tree(self.app, svc), direct=False)
                diff = tree_diff(head, new)
            except PatchError:
                # a settings change is an edit of the settings, wherever they stand; otherwise the
                # head moved on the same lines (an agent's patch; the corpus never conflicts with
                # itself) and the change is built on its base tree, dropping what it clashes with
                new = self._set_env(change, head)
                if new is None:
                    new = apply_diff(base_tree(self.app, svc), change.diff)[0]
                diff = tree_diff(head, new)
        self._commits[sha] = (svc, head, diff if new != head else "", change)
        self._head[svc] = new
        if change.defect is not None:
            self._carried.setdefault(svc, []).append(change)
        return diff

    def _set_env(self, change: Change, head: Tree) -> dict[str, str] | None:
        if not change.env_only:
            return None
        path = manifest_path(change.service)
        text = with_env(head.get(path, ""), change.env)
        return None if text is None else {**head, path: text}

    def revert_diff(self, sha: str) -> str:
        """The diff that reverts commit ``sha`` on its service's head as it stands now (merged
        three-way with what came after it). Raises ``KeyError`` for an unknown commit and
        ``PatchError`` when later commits changed the same lines."""
        svc, before, diff, _ = self._commits[sha]
        if not diff:
            raise PatchError(f"commit {sha[:12]} changed no file of {svc}'s repository")
        head = self.head(svc)
        return tree_diff(head, merge_diff(head, diff, before, reverse=True))

    def revert(self, sha: str, revert_sha: str) -> str:
        """Commit the revert of an earlier commit (``git revert``); returns the revert's diff."""
        svc, before, diff, change = self._commits[sha]
        head = self.head(svc)
        try:
            new = merge_diff(head, diff, before, reverse=True) if diff else dict(head)
        except PatchError:
            new = dict(before)  # nothing merges: step back to the tree before the change
        revert_diff = tree_diff(head, new)
        self._commits[revert_sha] = (svc, head, revert_diff, None)
        self._head[svc] = new
        if change is not None:
            self._carried[svc] = [c for c in self._carried.get(svc, []) if c.id != change.id]
        return revert_diff

    def in_head(self, change: Change) -> bool:
        """Is a defect change still in its service's head (committed and not reverted)?"""
        return any(c.id == change.id for c in self._carried.get(change.service, []))

    # ---------------------------------------------------------------------------- patches
    def sha_of(self, service: str, t: float, diff: str) -> str:
        return stable_hash(self.release, self.app, self.seed, "patch", service, t, diff, digits=40)

    def submit(self, service: str, image: str, diff: str, t: float) -> BuildResult:
        """Build a source patch against the service's head (``image`` is the image the service
        runs, whose repository the built image keeps).

        Stages stop at the first failure; a failed build has no image and nothing to deploy. The
        built image carries any defect of the head whose fix predicate the patched tree does not
        satisfy.
        """
        meta = self.meta(service)
        sha = self.sha_of(service, t, diff)
        stages: list[dict[str, str]] = []

        def fail(msg: str) -> BuildResult:
            return BuildResult(False, stages, sha, None, None, msg)

        parent = self.head(service)
        try:
            patches = parse_diff(diff)
            for fp in patches:
                for p in (fp.old_path, fp.new_path):
                    if (
                        p is not None
                        and p.startswith(f"{MANIFEST_DIR}/")
                        and p != manifest_path(service)
                    ):
                        raise PatchError(f"{p}: not part of {service}'s repository")
            new, notes = apply_diff(parent, patches)
        except PatchError as e:
            stages.append(_stage("apply", "failed", str(e)))
            return fail(f"patch does not apply to the head of {service}'s repository: {e}")
        files = [fp.path for fp in patches]
        if dict(new) == dict(parent):
            stages.append(_stage("apply", "failed", "the patch changes nothing"))
            return fail("patch changes nothing")
        stages.append(
            _stage("apply", "passed", "; ".join(notes) or f"{len(files)} file(s) changed")
        )
        issues = lint_tree(new, [f for f in files if f in new])
        if issues:
            stages.append(_stage("lint", "failed", "\n".join(map(str, issues))))
            return fail(f"lint failed: {issues[0]}")
        stages.append(_stage("lint", "passed", f"{len(files)} file(s) clean"))
        fails = run_unit_tests(meta, new)
        if fails:
            stages.append(_stage("unit-tests", "failed", "\n".join(fails)))
            return fail(f"unit tests failed: {fails[0]}")
        stages.append(_stage("unit-tests", "passed", f"{len(meta.tests)} passed"))
        repo = image.rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image
        built = f"{repo}:{sha[:12]}"
        stages.append(_stage("build", "passed", built))
        defect, carrier = self.defect(service, new)
        config = None
        mpath = manifest_path(service)
        if mpath in files:
            config = manifest_settings(new, service)
        self._commits[sha] = (service, parent, tree_diff(parent, new), None)
        self._head[service] = new
        return BuildResult(
            True,
            stages,
            sha,
            built,
            defect,
            f"built {built} from {sha[:7]} ({len(files)} file(s) changed)",
            files,
            config,
            carrier,
        )

"""The build pipeline: a source patch goes through apply, lint, unit tests and an image build.

Change-delivered faults and ordinary deploys arrive as commits whose ``diff`` applies to a service's
source tree (``source_trees``); the agent repairs by submitting a diff that goes through the same stages:

``apply``       the unified diff is parsed and applied with context verification (``diffs``;
                ``PatchError`` names the file and the hunk that does not apply, and where);
``lint``        each changed file is checked by the lint profile of its file type (``lint.lint_file``);
``unit-tests``  every unit-test predicate of the service must hold on the patched tree;
``build``       the image is tagged with the commit: ``<repository>:<sha[:12]>``.

A successful build carries the running change's defect unless that change's ``fix`` predicate holds on
the patched tree; the caller rolls the built image out. ``Pipeline`` also keeps the per-run
bookkeeping of which tree each image holds as changes deploy and revert. The module is pure Python and
deterministic (no wall clock): commit shas derive from (release, app, seed, service, parent image,
time, diff).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Literal

from sre_gym.catalogs.schema import Change, Defect
from sre_gym.rng import stable_hash
from sre_gym.sim.diffs import PatchError, apply_diff, changed_files, parse_diff
from sre_gym.sim.lint import lint_tree
from sre_gym.sim.source_trees import (
    MANIFEST_DIR,
    ServiceMeta,
    Tree,
    base_tree,
    fix_holds,
    manifest_path,
    manifest_settings,
    run_unit_tests,
    service_meta,
    services_with_trees,
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
    """Per-run source state of one app: which tree each built image holds, and patch builds.

    The repository head of each service moves with every deploy, revert and successful build; images
    are immutable snapshots. The base image of a service holds its base tree. Config changes, which
    do not build an image, register the edited manifest under the image they keep running.
    """

    def __init__(self, app: str, release: str, seed: int) -> None:
        self.app = app
        self.release = release
        self.seed = int(seed)
        services_with_trees(app)  # fails early for an app without source trees
        self._images: dict[tuple[str, str], Tree] = {}
        self._head: dict[str, Tree] = {}
        self._before: dict[tuple[str, str], list[Tree]] = {}  # (service, change id) -> trees

    # ---------------------------------------------------------------------------- trees
    def meta(self, service: str) -> ServiceMeta:
        return service_meta(self.app, service)

    def base_image(self, service: str) -> str:
        return self.meta(service).image

    def head(self, service: str) -> Tree:
        h = self._head.get(service)
        return h if h is not None else base_tree(self.app, service)

    def tree(self, service: str, image: str) -> Tree:
        t = self._images.get((service, image))
        if t is not None:
            return t
        if image == self.base_image(service):
            return base_tree(self.app, service)
        built = sorted(i for s, i in self._images if s == service)
        raise KeyError(
            f"no source tree for image {image!r} of {service}: it was not built by this pipeline "
            f"(known images: {', '.join([self.base_image(service), *built])})"
        )

    def files(self, service: str, image: str) -> list[str]:
        return sorted(self.tree(service, image))

    def read(self, service: str, image: str, path: str) -> str:
        tree = self.tree(service, image)
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
            raise KeyError(f"{service}@{image}: no file {path!r}{hint}")
        return tree[p]

    def _register(self, service: str, image: str, tree: Tree) -> None:
        self._images[(service, image)] = tree
        self._head[service] = tree

    # ---------------------------------------------------------------------------- deploys
    def on_deploy(self, change: Change, sha: str, image: str, t: float) -> None:
        """A corpus change was deployed as ``image``: apply its diff to the service's head."""
        head = self.head(change.service)
        try:
            new, _ = apply_diff(head, change.diff)
        except PatchError:
            # the head moved (an agent patch touched the same lines): the change was written
            # against the base tree, so build it from there
            new, _ = apply_diff(base_tree(self.app, change.service), change.diff)
        self._before.setdefault((change.service, change.id), []).append(head)
        self._register(change.service, image, new)

    def on_revert(self, change: Change, sha: str, image: str, t: float) -> None:
        """The revert commit of ``change`` was deployed as ``image``: reverse-apply its diff."""
        svc = change.service
        try:
            new, _ = apply_diff(self.head(svc), change.diff, reverse=True)
        except PatchError:
            stack = self._before.get((svc, change.id))
            if stack:
                new = stack[-1]
            elif (svc, image) in self._images or image == self.base_image(svc):
                new = self.tree(svc, image)
            else:
                new = base_tree(self.app, svc)
        stack = self._before.get((svc, change.id))
        if stack:
            stack.pop()
        self._register(svc, image, new)

    # ---------------------------------------------------------------------------- patches
    def sha_of(self, service: str, image: str, t: float, diff: str) -> str:
        return stable_hash(
            self.release, self.app, self.seed, "patch", service, image, t, diff, digits=40
        )

    def submit(
        self, service: str, image: str, running_change: Change | None, diff: str, t: float
    ) -> BuildResult:
        """Build a source patch against the tree of the running ``image``.

        Stages stop at the first failure; a failed build has no image and nothing to deploy. A built
        image keeps the running change's defect unless the change's fix predicate holds on the
        patched tree.
        """
        meta = self.meta(service)
        sha = self.sha_of(service, image, t, diff)
        stages: list[dict[str, str]] = []

        def fail(msg: str) -> BuildResult:
            return BuildResult(False, stages, sha, None, None, msg)

        try:
            parent = self.tree(service, image)
        except KeyError as e:
            stages.append(_stage("apply", "failed", str(e.args[0])))
            return fail(f"patch rejected: {e.args[0]}")
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
            return fail(f"patch does not apply: {e}")
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
        defect = None
        if running_change is not None and running_change.defect is not None:
            fix = running_change.fix
            defect = None if fix is not None and fix_holds(fix, new) else running_change.defect
        config = None
        mpath = manifest_path(service)
        if mpath in files:
            config = manifest_settings(new, service)
        self._register(service, built, new)
        return BuildResult(
            True,
            stages,
            sha,
            built,
            defect,
            f"built {built} from {sha[:7]} ({len(files)} file(s) changed)",
            files,
            config,
        )

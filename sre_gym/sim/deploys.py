"""Deploys through the pipeline on a :class:`~sre_gym.sim.cluster.SimCluster`: catalog changes
(code, config, image, flags) and built source patches, each recorded as a :class:`ChangeRecord`.

:class:`Deploys` is mixed into ``SimCluster``; it rolls out through the revision operations of
:class:`~sre_gym.sim.interventions.Interventions`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sre_gym.catalogs.schema import Change
from sre_gym.sim.diffs import changed_files
from sre_gym.sim.pipeline import BuildResult
from sre_gym.sim.state import Image


@dataclass
class ChangeRecord:
    """A deploy that went through the pipeline, as `list_changes` shows it."""

    sha: str
    service: str
    kind: str
    title: str
    author: str
    time: float
    files: list[str]
    diff: str
    image: str
    revision: int
    pipeline: dict[str, str]
    change_id: str  # catalog id (hidden from agents)


class Deploys:
    """Rolling out changes and patches, mixed into ``SimCluster`` (which keeps ``changes``)."""

    def deploy_change(
        self,
        change: Change,
        sha: str,
        t: float,
        *,
        title: str | None = None,
        author: str = "ci",
        revert_of: str | None = None,
    ) -> ChangeRecord:
        """Lint, test, build and roll out a change, shown as ``title`` (default: its own) by
        ``author``.

        A code change is committed to the service's repository head and the image is built from
        the head (so it carries any defect the head holds); a config change edits the manifest and
        the pod template; an image change deploys a tag, which pulls only if the registry has it
        (``published_tags``: the team's rebuilds of the head, carrying its defect). ``revert_of`` is
        the sha of the commit this one reverts (``git revert`` on the head).
        """
        dep = self._dep(change.service)
        tpl = dep.current.template
        repo = tpl.image.rsplit(":", 1)[0]
        diff = change.diff
        title = change.title if title is None else title
        tracked = self.pipeline is not None and change.service in self.pipeline_services
        if tracked:
            if revert_of is not None:
                diff = self.pipeline.revert(revert_of, sha)
            else:
                diff = self.pipeline.commit(change, sha)
        if change.flags:
            rev = self._set_flags(dict(change.flags), t)
            image = tpl.image
        else:
            if change.kind == "code":
                image = f"{repo}:{sha[:12]}"
                defect, carrier = (
                    self.pipeline.defect(change.service)
                    if tracked
                    else (None if revert_of else change.defect, None if revert_of else change)
                )
                self.world.images[image] = Image(image, change.service, sha, defect, carrier)
                tpl = replace(tpl, image=image)
            elif change.kind == "image":
                image = f"{repo}:{change.image_tag}"
                if change.image_tag in self.published_tags.get(change.service, ()):
                    # the team's tag is a rebuild of the head (a new base image, a toolchain
                    # bump): it carries whatever defect the head holds
                    defect, carrier = (
                        self.pipeline.defect(change.service) if tracked else (None, None)
                    )
                    self.world.images[image] = Image(image, change.service, sha, defect, carrier)
                tpl = replace(tpl, image=image)
            else:
                image = tpl.image
                for k, v in change.env.items():
                    tpl = tpl.with_env(k, v)
                if "cpu_limit" in change.resources:
                    tpl = replace(tpl, cpu_limit=change.resources["cpu_limit"])
                if "mem_limit" in change.resources:
                    tpl = replace(tpl, mem_limit=change.resources["mem_limit"])
                if change.readiness_port is not None:
                    tpl = replace(tpl, readiness_port=change.readiness_port)
            rev = self._new_revision(dep, tpl, f"deploy {sha[:7]}: {title}", t, sha)
        build = "passed" if change.kind == "code" else "skipped (no source change)"
        rec = ChangeRecord(
            sha=sha,
            service=change.service,
            kind=change.kind,
            title=title,
            author=author,
            time=t,
            files=changed_files(diff) if diff else list(change.files),
            diff=diff,
            image=tpl.image,
            revision=rev.number,
            pipeline={
                "lint": "passed",
                "unit-tests": "passed",
                "build": build,
                "rollout": "configmap updated" if change.flags else "started",
            },
            change_id=change.id,
        )
        self.changes.append(rec)
        return rec

    def deploy_patch(
        self, service: str, build: BuildResult, diff: str, t: float, author: str
    ) -> ChangeRecord:
        """Roll out an image the pipeline built from a source patch (and any manifest settings it
        carried)."""
        dep = self._dep(service)
        self.world.images[build.image] = Image(
            build.image, service, build.sha, build.defect, build.carrier
        )
        tpl = replace(dep.current.template, image=build.image)
        for k, v in ((build.config or {}).get("env") or {}).items():
            tpl = tpl.with_env(k, str(v))
        title = next(
            (
                ln.strip()
                for ln in diff.splitlines()
                if ln.strip()
                and not ln.startswith(("---", "+++", "@@", "+", "-", " ", "diff ", "index "))
            ),
            "source patch",
        )
        rev = self._new_revision(dep, tpl, f"patch {build.sha[:7]}: {title}", t, build.sha)
        rec = ChangeRecord(
            sha=build.sha,
            service=service,
            kind="code",
            title=title,
            author=author,
            time=t,
            files=list(build.files),
            diff=diff,
            image=build.image,
            revision=rev.number,
            pipeline={s["stage"]: s["status"] for s in build.stages} | {"rollout": "started"},
            change_id=f"patch:{build.sha[:12]}",
        )
        self.changes.append(rec)
        return rec

"""The shell-visible surface: read-only commands in the pods the task opens, nothing else."""

from __future__ import annotations

import pytest

from sre_gym.catalogs.arena import load_task
from sre_gym.sim.arena.shell import ShellError, pods, run
from sre_gym.sim.arena.world import ArenaWorld


@pytest.fixture(scope="module")
def world():
    w = ArenaWorld(load_task("arena-019"), 0, 400)
    w.advance_to(200)
    return w


def test_only_the_tasks_pods_are_open(world):
    assert pods(world) == ["svc-message-0", "svc-message-1"]
    with pytest.raises(ShellError, match="no shell on pod"):
        run(world, "postgres-0", "ls /")


def test_read_only_commands_find_the_documented_control_among_noise(world):
    assert "/srv/svc-message/ops/runtime.md" in run(world, "svc-message-0", "ls /srv")["output"]
    assert (
        "/admin/runtime"
        in run(world, "svc-message-0", "cat /srv/svc-message/ops/runtime.md")["output"]
    )
    log = "/var/log/svc-message/app.log"
    total = int(run(world, "svc-message-1", f"wc -l {log}")["output"].split()[0])
    hits = run(world, "svc-message-1", f"grep -i 'lifecycle restored' {log}")["output"]
    assert total > 300 and 0 < len(hits.splitlines()) < 5  # the signal is a few lines in hundreds
    assert run(world, "svc-message-0", f"grep -c WARN {log}")["output"] != "0"  # and noise
    assert "gunicorn" in run(world, "svc-message-0", "ps")["output"]
    assert len(run(world, "svc-message-0", f"tail -n 3 {log}")["output"].splitlines()) == 3


@pytest.mark.parametrize(
    "cmd", ["rm -rf /", "cat /etc/passwd", "grep x /var/log/svc-message/app.log | wc", "echo $HOME"]
)
def test_anything_else_is_refused(world, cmd):
    with pytest.raises(ShellError):
        run(world, "svc-message-0", cmd)


def test_reading_never_changes_the_run():
    a = ArenaWorld(load_task("arena-019"), 0, 300)
    b = ArenaWorld(load_task("arena-019"), 0, 300)
    for t in range(20, 300, 40):
        b.advance_to(t)
        run(b, "svc-message-0", "grep -i error /var/log/svc-message/app.log")
    a.advance_to(300)
    b.advance_to(300)
    assert (a.rec["ok"] == b.rec["ok"]).all() and (a.rec["p99"] == b.rec["p99"]).all()

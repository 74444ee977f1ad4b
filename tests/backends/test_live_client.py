"""The live backend's connection: the missing extra, the client configuration, API and Prometheus
errors (against the fakes of ``sre_gym.testing.fake_cluster``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

if os.environ.get("CI"):  # the live extra is part of `make test`: never skip silently in CI
    import kubernetes  # noqa: F401
    import prometheus_api_client  # noqa: F401
else:
    pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")
    pytest.importorskip("prometheus_api_client", reason="needs the live extra")

from kubernetes import config as k8s_config  # noqa: E402

from sre_gym.backends.base import OperationError  # noqa: E402
from sre_gym.backends.live import LiveBackend  # noqa: E402

from .conftest import APP, T0, run  # noqa: E402


# ---------------------------------------------------------------------------------------- packaging
def test_a_missing_extra_names_it():
    """Every module that needs the extra says which package is missing; the pure readers need none."""
    code = (
        "import importlib, sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'kubernetes':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "for mod in ('live', 'live_client', 'live_reads', 'live_interventions'):\n"
        "    try:\n"
        "        importlib.import_module(f'sre_gym.backends.{mod}')\n"
        "    except ImportError as e:\n"
        "        print(e)\n"
        "    else:\n"
        "        raise SystemExit(f'{mod} imported without kubernetes')\n"
        "import sre_gym.backends.live_objects\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 4, r.stdout
    assert all("pip install 'sre_gym[live]'" in x and "kubernetes" in x for x in lines)


# ---------------------------------------------------------------------------------------- configuration
def test_without_an_api_client_kube_config_then_in_cluster_config_is_loaded(fc, clock, monkeypatch):
    calls = []

    def kube(client_configuration=None, **kw):
        calls.append("kube")
        raise k8s_config.ConfigException("Invalid kube-config file. No configuration found.")

    def incluster(client_configuration=None, **kw):
        calls.append("incluster")
        client_configuration.host = fc.kube.url

    monkeypatch.setattr(k8s_config, "load_kube_config", kube)
    monkeypatch.setattr(k8s_config, "load_incluster_config", incluster)
    b = LiveBackend(APP, prometheus_url=fc.prom.url, clock=clock)
    assert calls == ["kube", "incluster"]
    assert len(b.k8s_get("deployments", None)) == len(fc.kube.names("deployments"))
    b.close()

    def no_incluster(client_configuration=None, **kw):
        raise k8s_config.ConfigException("Service host/port is not set.")

    monkeypatch.setattr(k8s_config, "load_incluster_config", no_incluster)
    with pytest.raises(RuntimeError, match="no Kubernetes configuration.*KUBECONFIG"):
        LiveBackend(APP, prometheus_url=fc.prom.url, clock=clock)


# ---------------------------------------------------------------------------------------- refusals
def test_other_api_refusals_carry_status_and_reason(fc, backend):
    fc.kube.refuse(
        "PATCH", "/deployments/frontend", 409, "Conflict", "the object has been modified"
    )
    with pytest.raises(OperationError) as e:
        backend.restart("frontend", T0)
    assert str(e.value) == (
        "kubernetes API refused the request on deployment 'frontend': 409 Conflict: "
        "the object has been modified"
    )
    assert "kubectl.kubernetes.io/restartedAt" not in json.dumps(
        fc.kube.get("deployments", "frontend")
    )
    fc.kube.refuse(
        "DELETE", "/pods/", 403, "Forbidden", 'pods is forbidden: User "agent" cannot delete'
    )
    with pytest.raises(OperationError, match="403 Forbidden: pods is forbidden"):
        backend.delete("pods", fc.kube.pods_of("frontend")[0], T0)
    assert len(fc.kube.pods_of("frontend")) == 2


# ---------------------------------------------------------------------------------------- prometheus
def test_a_bad_query_returns_prometheus_error_text_as_a_tool_error(fc, backend, toolbox):
    out = run(toolbox, backend, "query_metrics", query="sum(bad{job=")
    assert out["ok"] is False
    assert "parse error: unexpected end of input inside braces" in out["error"]
    assert out["error"].startswith("bad_data: ")
    with pytest.raises(OperationError, match="parse error"):
        backend.promql_range("bad{", T0 - 60, T0, 15)


def test_an_unreachable_prometheus_is_an_operation_error(fc, backend):
    fc.prom.stop()
    with pytest.raises(OperationError, match="prometheus at http://127.0.0.1:"):
        backend.promql_instant("up", T0)
    backend.poll_alerts()  # a failed poll changes nothing and says why
    assert backend.poll_error and backend.alerts(T0) == []

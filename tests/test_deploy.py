"""deploy/: the HAProxy configuration (rendered, sample in sync, accepted by haproxy) and the Kubernetes
manifests (parsed; affinity cookie, websocket timeouts, probes and one port throughout).

The live check of the HAProxy set-up (two replicas, one killed) is ``tests/test_replicas.py``.
"""

import doctest
import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
HAPROXY = shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")
                                           if os.access(p, os.X_OK)), None)
SAMPLE = {"replicas": [("127.0.0.1", 8866), ("127.0.0.1", 8867)], "bind_port": 8080, "stats_port": 8404,
          "user": "haproxy"}


@pytest.fixture(scope="module")
def render():
    spec = importlib.util.spec_from_file_location("drmath_deploy_haproxy", DEPLOY / "haproxy" / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sample_config(render):
    return render.deploy_config(SAMPLE["replicas"], SAMPLE["bind_port"], stats_port=SAMPLE["stats_port"],
                                user=SAMPLE["user"])


def test_render_doctests_pass(render):
    result = doctest.testmod(render)
    assert result.attempted >= 4 and result.failed == 0


def test_shipped_sample_is_what_render_gives_for_two_replicas(render):
    assert (DEPLOY / "haproxy" / "haproxy.cfg").read_text() == sample_config(render), \
        "regenerate: python deploy/haproxy/render.py --stats-port 8404 --user haproxy 127.0.0.1:8866 127.0.0.1:8867"


def test_config_has_sticky_cookie_websocket_timeout_and_fast_health_checks(render):
    lines = [line.split("#")[0].strip() for line in sample_config(render).splitlines()]
    assert "cookie SERVERID insert indirect nocache httponly" in lines
    assert "timeout tunnel 1h" in lines
    assert "option httpchk" in lines
    check = next(line for line in lines if line.startswith("http-check send"))
    assert f"uri {render.HEALTH_URI} " in check and render.HEALTH_URI.startswith("/voila/static/")
    default_server = next(line for line in lines if line.startswith("default-server")).split()
    for key, value in (("inter", "1s"), ("fall", "2"), ("rise", "2")):
        assert default_server[default_server.index(key) + 1] == value
    servers = [line.split() for line in lines if line.startswith("server ")]
    assert [(s[1], s[2], s[-1]) for s in servers] == [("r1", "127.0.0.1:8866", "r1"), ("r2", "127.0.0.1:8867", "r2")]
    assert "option redispatch 1" in lines and "retry-on conn-failure empty-response 503" in lines


@pytest.mark.parametrize("bad, match", [
    ({"replicas": []}, "at least one"),
    ({"replicas": [("127.0.0.1", 70000)]}, "port must be in 1..65535, got 70000"),
    ({"health_uri": "/"}, "starts no kernel"),
])
def test_render_refuses_bad_input(render, bad, match):
    kwargs = {"replicas": [("127.0.0.1", 8866)], "bind_port": 8080, **bad}
    with pytest.raises(ValueError, match=match):
        render.deploy_config(**kwargs)


@pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (./tasks test installs Debian's haproxy)")
def test_haproxy_accepts_the_sample_and_a_rendered_config(render, tmp_path):
    rendered = tmp_path / "haproxy.cfg"
    rendered.write_text(render.deploy_config([("127.0.0.1", 9001), ("127.0.0.1", 9002), ("10.0.0.3", 8866)], 9000))
    for cfg in (DEPLOY / "haproxy" / "haproxy.cfg", rendered):
        check = subprocess.run([HAPROXY, "-c", "-f", str(cfg)], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        assert "Configuration file is valid" in check.stdout + check.stderr


def manifests():
    """``{kind: document}`` of every YAML file in deploy/kubernetes/."""
    found = {}
    for path in sorted((DEPLOY / "kubernetes").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            found[doc["kind"]] = doc
    return found


def test_kubernetes_manifests_agree_on_port_probes_affinity_and_timeouts(render):
    m = manifests()
    assert set(m) == {"Deployment", "Service", "Ingress"}
    deployment, service, ingress = m["Deployment"], m["Service"], m["Ingress"]
    pod = deployment["spec"]["template"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    (container,) = pod["spec"]["containers"]
    assert container["command"] == ["python", "-m", "drmath.serve"]
    args = dict(a.lstrip("-").split("=", 1) for a in container["args"])
    assert args["ip"] == "0.0.0.0"
    (port,) = container["ports"]
    assert int(args["port"]) == port["containerPort"]

    def container_port(ref):
        return port["containerPort"] if ref == port["name"] else ref

    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = container[probe]["httpGet"]
        assert get["path"] == render.HEALTH_URI, probe
        assert container_port(get["port"]) == port["containerPort"], probe
    assert container["readinessProbe"]["periodSeconds"] * container["readinessProbe"]["failureThreshold"] <= 5
    (service_port,) = service["spec"]["ports"]
    assert container_port(service_port["targetPort"]) == port["containerPort"]
    (rule,) = ingress["spec"]["rules"]
    (path,) = rule["http"]["paths"]
    backend = path["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"] == deployment["metadata"]["name"]
    assert backend["port"].get("name") == service_port["name"] or backend["port"].get("number") == service_port["port"]

    # memory: the kernel cap must fit under the limit (~120 MB per kernel, ~160 MB server; docs/deployment.md), with
    # the notebook pages' static render beside it (issue 35: one ~200 MB kernel at a time, 32 MB of kept pages)
    mib = {"Mi": 1, "Gi": 1024}
    limit = container["resources"]["limits"]["memory"]
    assert int(limit[:-2]) * mib[limit[-2:]] >= int(args["max-kernels"]) * 120 + 160 + 200 + 32
    assert container["resources"]["requests"]["memory"] == limit

    notes = ingress["metadata"]["annotations"]
    prefix = "nginx.ingress.kubernetes.io/"
    assert notes[prefix + "affinity"] == "cookie"
    assert notes[prefix + "session-cookie-name"] == render.COOKIE
    assert int(notes[prefix + "proxy-read-timeout"]) >= 3600
    assert int(notes[prefix + "proxy-send-timeout"]) >= 3600
    assert all(isinstance(v, str) for v in notes.values()), "annotation values must be strings"

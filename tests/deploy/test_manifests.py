"""Deployment files, checked offline (issue 12, items 2 and 3).

* every YAML file under deploy/ passes yamllint with the repo's ``.yamllint``;
* every overlay under deploy/k8s/overlays/ is rendered by real kustomize
  (``kustomize build``, or ``kubectl kustomize``; issue 21 item 11), and what it
  renders passes yamllint and ``kubernetes-validate`` against the schemas it ships,
  for one pinned Kubernetes version, strictly (no unknown fields); so does the
  example Secret;
* kustomizations name only files that exist, every manifest is used by one, and no
  kustomization lies inside one it includes (kustomize's "cycle detected");
* the invariants that tie the files together: probe paths, non-root and a
  read-only root, preStop before SIGTERM within the grace period, the port in
  the ConfigMap, the Dockerfile and the container, the Secret's keys, the body
  limit in nginx, the ingress and MAX_BODY_BYTES, Redis persistence settings.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from yamllint import linter
from yamllint.config import YamlLintConfig

from tests.support import missing

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
K8S_VERSION = "1.30.0"  # the oldest minor still in upstream support when this was written
KUSTOMIZE_KINDS = {"Kustomization", "Component"}
APP_LABELS = {"app.kubernetes.io/name": "kaluki", "app.kubernetes.io/component": "api"}
MAX_BODY_BYTES = 256 * 1024  # service/app.py's default


def yaml_files() -> list[Path]:
    return sorted(p for p in DEPLOY.rglob("*") if p.suffix in (".yaml", ".yml"))


def load_all(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def kustomizations() -> list[Path]:
    return sorted(K8S.rglob("kustomization.yaml"))


def manifests_of(kustomization: Path) -> list[Path]:
    doc = load_all(kustomization)[0]
    out = []
    for entry in doc.get("resources", []):
        target = (kustomization.parent / entry).resolve()
        if target.is_dir():
            out += manifests_of(target / "kustomization.yaml")
        else:
            out.append(target)
    for entry in doc.get("components", []):
        out += manifests_of((kustomization.parent / entry).resolve() / "kustomization.yaml")
    return out


def documents(paths: list[Path]) -> list[dict]:
    return [d for p in paths for d in load_all(p)]


def one(docs: list[dict], kind: str, name: str | None = None) -> dict:
    found = [d for d in docs if d["kind"] == kind
             and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"one {kind} {name or ''}: {len(found)}"
    return found[0]


OVERLAYS = sorted(p.name for p in (K8S / "overlays").iterdir() if p.is_dir())


def _kustomize() -> list[str] | None:
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    return None


@functools.cache
def rendered_text(overlay: str) -> str:
    """What ``kubectl apply -k deploy/k8s/overlays/<overlay>`` would apply."""
    command = _kustomize()
    if command is None:
        missing("kustomize or kubectl (kubectl kustomize renders the overlays)")
    assert command is not None
    out = subprocess.run([*command, str(K8S / "overlays" / overlay)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def rendered(overlay: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(rendered_text(overlay)) if d is not None]


def BASE_DOCS() -> list[dict]:  # noqa: N802 - stands for the rendered base (external Redis)
    return rendered("external")


@pytest.mark.parametrize("path", yaml_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_yamllint(path):
    config = YamlLintConfig(file=str(ROOT / ".yamllint"))
    problems = list(linter.run(path.read_text(), config, str(path)))
    assert not problems, "\n".join(f"{path}:{p.line}:{p.column} {p.desc} ({p.rule})"
                                   for p in problems)


def k8s_manifest_files() -> list[Path]:
    return sorted(p for p in K8S.rglob("*.yaml") if p.name != "kustomization.yaml")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_overlay_renders_and_what_it_renders_validates(overlay):
    text = rendered_text(overlay)
    docs = rendered(overlay)
    assert {"Deployment", "Service", "ConfigMap", "Ingress"} <= {d["kind"] for d in docs}
    for doc in docs:
        assert doc["kind"] not in KUSTOMIZE_KINDS
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)  # raises on any error
    # the rendered stream as kustomize writes it (its own indentation and line breaks)
    relaxed = YamlLintConfig("extends: default\nrules:\n  document-start: disable\n"
                             "  indentation: disable\n  line-length: disable\n")
    problems = list(linter.run(text, relaxed))
    assert not problems, [f"{p.line}:{p.column} {p.desc}" for p in problems]


def test_the_example_secret_validates():
    for doc in load_all(K8S / "secret.example.yaml"):
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_no_kustomization_lies_inside_one_it_includes():
    for k in kustomizations():
        doc = load_all(k)[0]
        for entry in doc.get("resources", []) + doc.get("components", []):
            target = (k.parent / entry).resolve()
            if target.is_dir():
                assert target not in k.parent.resolve().parents, f"{k}: {entry} contains it"


def test_kustomizations_name_existing_files_and_use_every_manifest():
    used: set[Path] = set()
    for k in kustomizations():
        doc = load_all(k)[0]
        assert doc["kind"] in KUSTOMIZE_KINDS
        for entry in doc.get("resources", []) + doc.get("components", []):
            assert (k.parent / entry).exists(), f"{k}: {entry} does not exist"
        used |= set(manifests_of(k))
    for path in k8s_manifest_files():
        if path.name.endswith(".example.yaml"):
            assert path.resolve() not in used, f"{path}: an example must not be deployed"
        else:
            assert path.resolve() in used, f"{path}: no kustomization uses it"


def _gunicorn_setting(name: str, default: float | None = None) -> float:
    """A value of deploy/gunicorn.conf.py with no overrides (read in a child: it sets env)."""
    code = (f"import runpy; c = runpy.run_path('deploy/gunicorn.conf.py'); "
            f"print(c.get({name!r}, {default!r}))")
    with tempfile.TemporaryDirectory() as tmp:  # the config may write files under /tmp
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, check=True,
                             env={"PATH": "/usr/bin:/bin", "PORT": "1",
                                  "PROMETHEUS_MULTIPROC_DIR": tmp,
                                  "KALUKI_DRAIN_FILE": f"{tmp}/drain",
                                  "GUNICORN_CONTROL_SOCKET": f"{tmp}/ctl"})
    return float(out.stdout.strip())


def _container(deployment: dict) -> dict:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def test_deployment_probes_security_and_shutdown():
    dep = one(BASE_DOCS(), "Deployment", "kaluki")
    pod = dep["spec"]["template"]["spec"]
    c = _container(dep)
    port_names = {p["name"]: p["containerPort"] for p in c["ports"]}
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz"),
                        ("startupProbe", "/healthz")):
        assert c[probe]["httpGet"]["path"] == path, probe
        assert c[probe]["httpGet"]["port"] in port_names, probe
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["allowPrivilegeEscalation"] is False
    # what the service writes (metrics files, gunicorn's control socket) goes to /tmp
    config = one(BASE_DOCS(), "ConfigMap", "kaluki-config")["data"]
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert "emptyDir" in volumes[mounts["/tmp"]]
    assert config["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")
    assert "KALUKI_DATA_DIR" not in config, "replicas share REDIS_URL, never an embedded Redis"
    # the load balancers drain during preStop; on SIGTERM gunicorn drains (if the config
    # has a drain period), then stops its workers gracefully: all of it fits the grace
    pause = c["lifecycle"]["preStop"]["exec"]["command"]
    assert pause[0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] >= (
        int(pause[1]) + _gunicorn_setting("SHUTDOWN_DRAIN_SECONDS", 0)
        + _gunicorn_setting("graceful_timeout") + 5)
    assert c["resources"]["requests"]["cpu"] and c["resources"]["limits"]["memory"]
    assert pod["topologySpreadConstraints"]
    for spread in pod["topologySpreadConstraints"]:
        assert spread["labelSelector"]["matchLabels"] == APP_LABELS
    # gunicorn's default worker count is the node's cores, not the pod's
    assert int(config["WEB_CONCURRENCY"]) >= 1


def test_ports_agree_with_port_and_the_image():
    config = one(BASE_DOCS(), "ConfigMap", "kaluki-config")["data"]
    dep = one(BASE_DOCS(), "Deployment", "kaluki")
    c = _container(dep)
    expose = re.search(r"^EXPOSE\s+(\d+)", (ROOT / "Dockerfile").read_text(), re.M)
    port_env = re.search(r"\bPORT=(\d+)", (ROOT / "Dockerfile").read_text())
    assert expose and port_env
    assert ({p["containerPort"] for p in c["ports"]}
            == {int(config["PORT"]), int(expose.group(1)), int(port_env.group(1))})
    assert dep["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"] \
        == config["PORT"]
    svc = one(BASE_DOCS(), "Service", "kaluki")
    assert svc["spec"]["selector"] == APP_LABELS
    assert {p["targetPort"] for p in svc["spec"]["ports"]} <= {p["name"] for p in c["ports"]}
    for ing in (d for d in BASE_DOCS() if d["kind"] == "Ingress"):
        for rule in ing["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                backend = path["backend"]["service"]
                assert backend["name"] == "kaluki"
                assert backend["port"]["name"] in {p["name"] for p in svc["spec"]["ports"]}


def test_secrets_come_from_the_secret_and_only_an_example_ships():
    c = _container(one(BASE_DOCS(), "Deployment", "kaluki"))
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in c["env"]
            if "secretKeyRef" in e.get("valueFrom", {})}
    assert set(refs) == {"REDIS_URL", "LEDGER_SIGNING_KEY"}
    assert {r["name"] for r in refs.values()} == {"kaluki-secrets"}
    assert not any(r.get("optional") for r in refs.values())
    assert not any(d["kind"] == "Secret" for o in OVERLAYS for d in rendered(o)), "never deploy a Secret"
    example = load_all(K8S / "secret.example.yaml")[0]
    assert example["metadata"]["name"] == "kaluki-secrets"
    assert {r["key"] for r in refs.values()} == set(example["stringData"])
    config = one(BASE_DOCS(), "ConfigMap", "kaluki-config")["data"]
    assert not set(config) & set(refs), "a secret value in the ConfigMap"


def test_autoscaler_budget_and_network_policy_select_the_deployment():
    dep = one(BASE_DOCS(), "Deployment", "kaluki")
    assert dep["spec"]["selector"]["matchLabels"] == APP_LABELS
    assert dep["spec"]["template"]["metadata"]["labels"] == APP_LABELS
    hpa = one(BASE_DOCS(), "HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": "kaluki"}
    assert 2 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    pdb = one(BASE_DOCS(), "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"] == APP_LABELS
    assert pdb["spec"]["maxUnavailable"] < hpa["spec"]["minReplicas"]
    policy = one(BASE_DOCS(), "NetworkPolicy", "kaluki")
    assert policy["spec"]["podSelector"]["matchLabels"] == APP_LABELS
    assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    assert [p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]] == ["http"]
    egress_ports = {p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"]}
    assert {53, 6379} <= egress_ports


def _bytes(size: str) -> int:
    m = re.fullmatch(r"(\d+)([kKmM]?)", size)
    assert m, size
    return int(m.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[m.group(2).lower()]


def test_body_limits_in_step_with_max_body_bytes():
    config = one(BASE_DOCS(), "ConfigMap", "kaluki-config")["data"]
    assert int(config["MAX_BODY_BYTES"]) == MAX_BODY_BYTES
    nginx = (DEPLOY / "nginx" / "nginx.conf").read_text()
    limits = re.findall(r"^\s*client_max_body_size\s+(\w+);", nginx, re.M)
    assert _bytes(limits[0]) == MAX_BODY_BYTES  # the server-wide one
    assert _bytes(one(BASE_DOCS(), "Ingress", "kaluki")["metadata"]["annotations"][
        "nginx.ingress.kubernetes.io/proxy-body-size"]) == MAX_BODY_BYTES
    compose = load_all(DEPLOY / "compose.yaml")[0]
    assert int(compose["services"]["app"]["environment"]["MAX_BODY_BYTES"]) == MAX_BODY_BYTES
    # imports get 32 MiB at both proxies, above the service's own LEDGER_IMPORT_MAX_BYTES
    assert _bytes(limits[1]) == 32 * 1024 * 1024 and "location = /v1/matches/import" in nginx
    imp = one(BASE_DOCS(), "Ingress", "kaluki-import")
    assert _bytes(imp["metadata"]["annotations"][
        "nginx.ingress.kubernetes.io/proxy-body-size"]) == 32 * 1024 * 1024
    assert imp["spec"]["rules"][0]["http"]["paths"][0]["path"] == "/v1/matches/import"


def _redis_args(command: list[str]) -> dict[str, str]:
    args = command[1:]
    return {args[i].lstrip("-"): args[i + 1] for i in range(0, len(args) - 1, 2)
            if args[i].startswith("--")}


def test_compose_services():
    compose = load_all(DEPLOY / "compose.yaml")[0]
    services = compose["services"]
    assert {"nginx", "app", "redis"} <= set(services)
    assert "./nginx/nginx.conf:/etc/nginx/nginx.conf:ro" in services["nginx"]["volumes"]
    app = services["app"]
    assert app["deploy"]["replicas"] >= 2
    assert app["build"]["context"] == ".." and (DEPLOY / app["build"]["context"]
                                                / app["build"]["dockerfile"]).exists()
    assert app["environment"]["REDIS_URL"].startswith("redis://redis:")
    assert "ports" not in app, "the replicas are reached only through nginx"
    assert re.search(r"server\s+app:8000", (DEPLOY / "nginx" / "nginx.conf").read_text())
    redis = services["redis"]
    args = _redis_args(redis["command"])
    assert args["appendonly"] == "yes" and args["appendfsync"] == "everysec"
    assert args["maxmemory-policy"] == "noeviction"
    assert any(v.endswith(":/data") and v.split(":")[0] in compose["volumes"]
               for v in redis["volumes"])


COMPOSE_FILES = ("compose.yaml", "compose.cluster.yaml")


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_compose_files_parse_as_the_compose_specification(name):
    """issue 21 item 16: a Compose Specification parser (the compose_spec crate) reads each
    file strictly (an unknown key or a wrong type fails); YAML's merge keys are resolved
    first, as Compose v2 does. The base file names its project (a top-level ``name:``, which
    Compose v2 reads and v1 rejects: docs/deploy.md says v2 is needed)."""
    from compose_spec import PyCompose

    doc = load_all(DEPLOY / name)[0]
    parsed = PyCompose.from_json(json.dumps(doc))
    assert parsed.service_names()
    if name == "compose.yaml":
        assert parsed.name == "kaluki"
    with pytest.raises(ValueError):
        PyCompose.from_json(json.dumps({**doc, "services": {
            "app": {**doc["services"]["app"], "replica": 3}}}))
    assert "Compose v2" in (ROOT / "docs" / "deploy.md").read_text()


def test_compose_cluster_file():
    cluster = load_all(DEPLOY / "compose.cluster.yaml")[0]
    nodes = {name: s for name, s in cluster["services"].items()
             if "--cluster-enabled" in s.get("command", [])}
    assert len(nodes) == 6 and "redis" in nodes  # REDIS_URL (redis://redis:6379) names one
    for s in nodes.values():
        args = _redis_args(s["command"])
        assert args["cluster-enabled"] == "yes" and args["appendonly"] == "yes"
        assert args["maxmemory-policy"] == "noeviction"
        # a failing-over shard must not take the healthy ones down with it (issue 21 item 19)
        assert args["cluster-require-full-coverage"] == "no"
        assert len({v.split(":")[0] for v in s["volumes"]}) == 1
    volumes = [v.split(":")[0] for s in nodes.values() for v in s["volumes"]]
    assert len(set(volumes)) == 6, "each node its own volume"
    init = cluster["services"]["redis-cluster-init"]
    script = " ".join(init["entrypoint"])
    assert "--cluster create" in script and "--cluster-replicas 1" in script
    assert all(name in script for name in nodes)
    # a replica per master, and every write waits for it
    assert int(cluster["services"]["app"]["environment"]["REDIS_WAIT_REPLICAS"]) == 1
    assert set(cluster["volumes"]) | {"redis-data"} == set(volumes)
    assert cluster["services"]["app"]["depends_on"]["redis-cluster-init"]["condition"] \
        == "service_completed_successfully"


def test_small_install_redis_persists_and_does_not_evict():
    sts = one(rendered("small"), "StatefulSet", "kaluki-redis")
    conf = one(rendered("small"), "ConfigMap", "kaluki-redis")["data"]["redis.conf"]
    settings = dict(line.split(None, 1) for line in conf.splitlines()
                    if line.strip() and not line.startswith("#"))
    assert settings["appendonly"] == "yes" and settings["appendfsync"] == "everysec"
    assert settings["maxmemory-policy"] == "noeviction"
    pod = sts["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    mounts = {m["mountPath"]: m["name"] for m in pod["containers"][0]["volumeMounts"]}
    assert mounts["/data"] in {t["metadata"]["name"] for t in sts["spec"]["volumeClaimTemplates"]}
    assert settings["dir"] == "/data"
    svc = one(rendered("small"), "Service", "kaluki-redis")
    assert svc["spec"]["selector"] == sts["spec"]["selector"]["matchLabels"]
    # the overlay documents REDIS_URL=redis://kaluki-redis:6379/0
    overlay = K8S / "overlays" / "small" / "kustomization.yaml"
    assert "redis://kaluki-redis:6379/0" in overlay.read_text()


def test_the_cluster_overlay_waits_for_a_replica():
    """issue 21 item 19: on a Redis Cluster with replicas, a write is acknowledged once a
    replica has it; the other overlays leave it off (a lone Redis has no replica)."""
    config = one(rendered("cluster"), "ConfigMap", "kaluki-config")["data"]
    assert int(config["REDIS_WAIT_REPLICAS"]) >= 1 and int(config["REDIS_WAIT_TIMEOUT_MS"]) > 0
    for overlay in ("external", "small"):
        assert "REDIS_WAIT_REPLICAS" not in one(rendered(overlay), "ConfigMap",
                                                "kaluki-config")["data"]
    text = (K8S / "overlays" / "cluster" / "kustomization.yaml").read_text()
    assert "cluster-require-full-coverage no" in text


def test_validator_rejects_a_broken_manifest():
    """The offline validation really checks: an unknown field and a wrong type fail."""
    dep = json.loads(json.dumps(one(BASE_DOCS(), "Deployment", "kaluki")))
    dep["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["pth"] = "/"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(dep, K8S_VERSION, strict=True)
    dep = json.loads(json.dumps(one(BASE_DOCS(), "Deployment", "kaluki")))
    dep["spec"]["replicas"] = "three"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(dep, K8S_VERSION, strict=True)

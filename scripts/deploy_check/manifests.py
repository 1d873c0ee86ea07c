"""The Kubernetes manifests under k8s/: both overlays rendered, every object validated against
its schema, the policy check, and the rendered objects compared with what the code expects (the
environment with the settings, the routes with the routing table, the NATS users)."""

from __future__ import annotations

import importlib
import inspect
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .report import Report
from .tools import (
    CHECKOV,
    CHECKOV_FLAGS,
    KUBECTL,
    KUBERNETES_VALIDATE,
    checkov_counts,
    failure,
    run,
    tail,
    tool,
)
from .workspace import ROOT, Json, services

OVERLAYS = ("dev", "prod")
# The oldest Kubernetes release the manifests are meant for, and the newest the validator has.
KUBERNETES_VERSIONS = ("1.31", "1.37")

CRD_SCHEMAS = {
    ("gateway.networking.k8s.io/v1", "Gateway"): "gateway.networking.k8s.io_gateway_v1.json",
    ("gateway.networking.k8s.io/v1", "HTTPRoute"): "gateway.networking.k8s.io_httproute_v1.json",
    (
        "gateway.envoyproxy.io/v1alpha1",
        "BackendTrafficPolicy",
    ): "gateway.envoyproxy.io_backendtrafficpolicy_v1alpha1.json",
}
WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"})


# --- rendering and schemas ----------------------------------------------------------------------


def render(report: Report, directory: Path) -> dict[str, Path]:
    rendered: dict[str, Path] = {}
    for overlay in OVERLAYS:
        built = run(tool(KUBECTL, "kubectl", "kustomize", f"k8s/overlays/{overlay}"))
        report.check(f"kustomize {overlay}", failure(built))
        if built.returncode == 0:
            path = directory / f"{overlay}.yaml"
            path.write_text(built.stdout)
            rendered[overlay] = path
    return rendered


def check_kubernetes_schemas(report: Report, rendered: dict[str, Path]) -> None:
    """Built-in kinds against the validator's schemas; a kind it has none for must be one of
    the custom resources whose schema k8s/schemas/ holds (checked by the helper)."""
    custom = {f"{kind} with api version {api}" for api, kind in CRD_SCHEMAS}
    for overlay, path in rendered.items():
        for version in KUBERNETES_VERSIONS:
            validate = ["--strict", "--kubernetes-version", version, str(path)]
            validated = run(tool(KUBERNETES_VALIDATE, "kubernetes-validate", *validate))
            problems: list[str] = []
            passed = 0
            for line in validated.stdout.splitlines():
                if line.startswith("INFO"):
                    passed += 1
                elif line.startswith("WARN") and any(kind in line for kind in custom):
                    continue
                else:
                    problems.append(line)
            if validated.returncode != 0 and not problems:
                problems = tail(validated.stderr)
            report.check(f"Kubernetes {version} schemas, {overlay}", problems, f"{passed} objects")


def check_policies(report: Report, directory: Path) -> None:
    scan = ["--directory", str(directory), "--framework", "kubernetes", *CHECKOV_FLAGS]
    scanned = run(tool(CHECKOV, "checkov", *scan))
    report.check("checkov manifests", failure(scanned, 60), checkov_counts(scanned.stdout))


def closed(schema: Any) -> Any:
    """`schema` with unknown fields refused wherever it lists the known ones."""
    if isinstance(schema, list):
        return [closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: closed(value) for key, value in schema.items()}
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


def custom_resource_problems(documents: list[Json]) -> Json:
    import jsonschema  # type: ignore[import-untyped,import-not-found,unused-ignore]

    validators: dict[tuple[str, str], Any] = {}
    for key, file in CRD_SCHEMAS.items():
        schema = closed(json.loads((ROOT / "k8s" / "schemas" / file).read_text()))
        validators[key] = jsonschema.Draft7Validator(schema)
    problems: list[str] = []
    checked = 0
    for doc in documents:
        validator = validators.get((doc.get("apiVersion", ""), doc.get("kind", "")))
        if validator is None:
            continue
        checked += 1
        for error in validator.iter_errors(doc):
            at = "/".join(str(part) for part in error.absolute_path)
            problems.append(f"{doc['kind']} {doc['metadata']['name']}: {at}: {error.message}")
    return {"checked": checked, "problems": problems}


# --- checks on the rendered objects -------------------------------------------------------------


def objects_of(documents: list[Json], kind: str) -> Iterator[Json]:
    return (doc for doc in documents if doc.get("kind") == kind)


def check_routes(report: Report, documents: list[Json], overlay: str) -> None:
    title = f"routes equal SERVICE_PREFIXES, {overlay}"
    try:
        from redline.runtime.routing import SERVICE_PREFIXES
    except ImportError as exc:
        report.check(title, [f"the routing table cannot be imported: {exc}"])
        return
    routed: dict[str, list[str]] = {}
    problems: list[str] = []
    for route in objects_of(documents, "HTTPRoute"):
        name = route["metadata"]["name"]
        for rule in route["spec"].get("rules", []):
            backends = {ref["name"] for ref in rule.get("backendRefs", [])}
            if len(backends) != 1:
                problems.append(f"HTTPRoute {name}: a rule should name one service: {backends}")
                continue
            [backend] = backends
            for match in rule.get("matches", []):
                path = match.get("path", {})
                if path.get("type") != "PathPrefix":
                    problems.append(f"HTTPRoute {name}: {path} is not a PathPrefix match")
                routed.setdefault(backend, []).append(path.get("value", ""))
    for service in sorted(set(routed) | set(SERVICE_PREFIXES)):
        want = sorted(SERVICE_PREFIXES.get(service, ()))
        got = sorted(routed.get(service, []))
        if got != want:
            problems.append(f"{service}: routes {got}, routing table {want}")
    report.check(title, problems)


def settings_fields(service: str) -> set[str]:
    """The REDLINE_* variables `service` reads: the fields of its settings Struct."""
    from redline.runtime.settings import PREFIX, RuntimeSettings

    module = importlib.import_module(f"redline.{service}.settings")
    [struct] = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, RuntimeSettings)
        and value.__module__ == module.__name__
    ]
    return {PREFIX + field.upper() for field in struct.__struct_fields__}


def check_environment(report: Report, documents: list[Json], overlay: str) -> None:
    config_maps = {
        doc["metadata"]["name"]: doc.get("data", {}) for doc in objects_of(documents, "ConfigMap")
    }
    secrets = {
        doc["metadata"]["name"]: doc.get("data", {}) for doc in objects_of(documents, "Secret")
    }
    problems: list[str] = []
    every_setting: set[str] = set()
    for name in services():
        every_setting |= settings_fields(name)
    for workload in documents:
        if workload.get("kind") not in WORKLOAD_KINDS:
            continue
        owner = workload["metadata"]["name"]
        # The infrastructure's containers read no REDLINE_* settings.
        fields = settings_fields(owner) if owner in services() else None
        pod = workload["spec"]["template"]["spec"]
        for container in pod.get("initContainers", []) + pod.get("containers", []):
            where = f"{owner}/{container['name']}"
            problems += container_env_problems(
                where, container, fields, config_maps, secrets, overlay
            )
    for name, data in config_maps.items():
        for key in data:
            if key.startswith("REDLINE_") and key not in every_setting:
                problems.append(f"ConfigMap {name}: {key} is no service's setting")
    report.check(f"environment matches the settings, {overlay}", problems)


def container_env_problems(
    where: str,
    container: Json,
    fields: set[str] | None,
    config_maps: Mapping[str, Mapping[str, str]],
    secrets: Mapping[str, Mapping[str, str]],
    overlay: str,
) -> list[str]:
    problems: list[str] = []
    defined: set[str] = set()
    for source in container.get("envFrom", []):
        ref = source.get("configMapRef") or source.get("secretRef") or {}
        known = {**config_maps, **secrets}
        if ref.get("name") not in known:
            if overlay == "dev":
                problems.append(f"{where}: envFrom {ref.get('name')} is not in the overlay")
            continue
        defined |= set(known[ref["name"]])
    defined_by_env_from = set(defined)
    for variable in container.get("env", []):
        name = variable["name"]
        for reference in re.findall(r"\$\((\w+)\)", variable.get("value", "")):
            if reference not in defined:
                problems.append(f"{where}: {name} refers to $({reference}), defined nowhere before")
        secret = variable.get("valueFrom", {}).get("secretKeyRef")
        needed = secret and overlay == "dev" and not secret.get("optional")
        if needed and secret["key"] not in secrets.get(secret["name"], {}):
            problems.append(f"{where}: secret key {secret['key']} is not in {secret['name']}")
        defined.add(name)
    for name in sorted(defined - defined_by_env_from):
        if fields is not None and name.startswith("REDLINE_") and name not in fields:
            problems.append(f"{where}: {name} is not a setting of this service")
    return problems


def users_conf(documents: list[Json]) -> str:
    """The NATS users' configuration the manifests carry."""
    return "".join(
        doc.get("data", {}).get("users.conf", "") for doc in objects_of(documents, "ConfigMap")
    )


def check_nats_users(report: Report, documents: list[Json]) -> None:
    """Each service connects as its own user, and the NATS configuration has that user."""
    users = set(re.findall(r"^\s*user:\s*(\S+)\s*$", users_conf(documents), re.MULTILINE))
    problems: list[str] = []
    for deployment in objects_of(documents, "Deployment"):
        service = deployment["metadata"]["name"]
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        url = next(
            (
                v.get("value", "")
                for v in container.get("env", [])
                if v["name"] == "REDLINE_NATS_URL"
            ),
            "",
        )
        if not url.startswith(f"nats://{service}:"):
            problems.append(f"{service}: REDLINE_NATS_URL does not use the user {service}")
        if service not in users:
            problems.append(f"{service}: no NATS user in users.conf")
    report.check("a NATS user per service, dev", problems)


def check_prod_secrets(report: Report, documents: list[Json]) -> None:
    secrets = [doc["metadata"]["name"] for doc in objects_of(documents, "Secret")]
    report.check(
        "prod makes no Secret (they come from outside)",
        [f"Secret {name} in the prod overlay" for name in secrets],
    )

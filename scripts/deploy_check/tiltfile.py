"""The Tiltfile: loaded with Tilt's functions stubbed (in the helper's environment, which has
starlark), then checked against the dev overlay and the images' layout."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .images import IMAGE_ROOT
from .manifests import WORKLOAD_KINDS
from .report import Report
from .workspace import ROOT, Json, workspace_members

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


# --- Tilt's functions stubbed -----------------------------------------------------------------


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

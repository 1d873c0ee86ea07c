"""The part of the checks that parses YAML and Starlark: it runs in a tool environment with
starlark-pyo3, PyYAML and jsonschema (`python -m` this module from the repository root), and
prints JSON for the rest to check."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .manifests import custom_resource_problems
from .report import Report
from .tiltfile import load_tiltfile
from .tools import run, tail, tool
from .workspace import ROOT, Json

# What the part of the checks that parses YAML and Starlark runs with (see `helper`).
HELPER_PACKAGES = ("starlark-pyo3==2026.1.3", "pyyaml==6.0.3", "jsonschema==4.26.0")


def run_helper(report: Report, rendered: dict[str, Path]) -> Json | None:
    """Parse the rendered YAML, validate the custom resources and load the Tiltfile, in the
    helper's environment (see `helper`)."""
    args = [
        arg for overlay, path in rendered.items() for arg in ("--rendered", f"{overlay}={path}")
    ]
    first, *others = HELPER_PACKAGES
    # Run as a module from the repository root (`run`'s working directory), so that its
    # relative imports resolve without the workspace's environment.
    command = tool(first, "python", "-m", __name__, *args, with_=tuple(others))
    done = run(command)
    if done.returncode != 0:
        report.check("YAML and Tiltfile helper", tail(done.stdout + done.stderr))
        return None
    result: Json = json.loads(done.stdout)
    return result


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--rendered", action="append", default=[])
    args = parser.parse_args(argv)
    helper(args.rendered)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs every check: `python -m scripts.deploy_check` from the repository root (see the
package's docstring for what is checked)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from . import __doc__ as overview
from .helper import run_helper
from .images import check_dockerfiles, check_no_torch
from .manifests import (
    check_environment,
    check_kubernetes_schemas,
    check_nats_users,
    check_policies,
    check_prod_secrets,
    check_routes,
    render,
)
from .nats_permissions import check_nats_permissions
from .report import Report
from .tiltfile import check_tiltfile
from .workspace import Json


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
        check_nats_permissions(report, documents["dev"])
        check_tiltfile(report, result["tilt"], documents["dev"])
    if "prod" in documents:
        check_prod_secrets(report, documents["prod"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m {__package__}",
        description=overview.split("\n", 1)[0] if overview else None,
    )
    parser.parse_args(argv)
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

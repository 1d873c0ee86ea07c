"""`make bench`: run every benchmark, print its figures beside its baseline, and write the table of
all of them to bench-results.md and bench-results.json.

`python -m tests.bench [--out DIR] [NAME ...]`: the results go to DIR (the repository root by
default); NAMEs (module names, e.g. `mixed_load`) run those benchmarks alone. Exits non-zero
when a gating target is missed or a benchmark does not finish.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from tests.bench import (
    access_check,
    comments_get,
    comments_growth,
    delivery_claim,
    embedders,
    memory_knowledge,
    mixed_load,
    webhook_delivery,
    workflow_executions,
    workspace_get,
)
from tests.bench.report import Outcome, Row, all_passed, write

ROOT = Path(__file__).resolve().parents[2]

BENCHMARKS: dict[str, Callable[[], list[Row]]] = {
    "workspace_get": workspace_get.main,
    "access_check": access_check.main,
    "comments_get": comments_get.main,
    "comments_growth": comments_growth.main,
    "webhook_delivery": webhook_delivery.main,
    "delivery_claim": delivery_claim.main,
    "embedders": embedders.main,
    "memory_knowledge": memory_knowledge.main,
    "workflow_executions": workflow_executions.main,
    "mixed_load": mixed_load.main,
}


def _run(name: str, benchmark: Callable[[], list[Row]]) -> Outcome:
    """One benchmark's rows; one that fails is reported and the others still run, so a long run
    is not lost to one broken benchmark."""
    started = time.monotonic()
    try:
        rows = benchmark()
    except Exception as exc:
        traceback.print_exc()
        return Outcome(name, [], f"{type(exc).__name__}: {exc}")
    print(f"({name}: {time.monotonic() - started:.0f} s)", flush=True)
    return Outcome(name, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench")
    parser.add_argument("--out", type=Path, default=ROOT, help="where the results are written")
    parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(BENCHMARKS))
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(
            f"no benchmark named {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}"
        )
    chosen = args.names or list(BENCHMARKS)
    outcomes = [_run(name, BENCHMARKS[name]) for name in chosen]
    md_path, json_path = write(outcomes, args.out)
    print()
    print(md_path.read_text())
    print(f"written to {md_path} and {json_path}")
    return 0 if all_passed(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())

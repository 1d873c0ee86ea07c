"""What a benchmark hands back besides its printout: one row per figure, and the table of every
row that `python -m tests.bench` writes at the end of a run (Markdown for people, JSON for
comparing runs).

A row's ratio is always its figure over its baseline's, whatever the unit: above 1 means the
system is slower for a latency and faster for a rate, and the target says which way is good.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Row:
    name: str
    figure: float
    unit: str
    baseline: float | None = None
    ratio: float | None = None
    # What the figure (or its ratio) should reach, in words, and whether it did.
    target: str | None = None
    met: bool | None = None
    # False where a miss is shown but does not fail the run: a target this machine is known not
    # to reach, kept in sight rather than turned into a permanent red run.
    gating: bool = True


def row(
    name: str,
    figure: float,
    unit: str,
    *,
    baseline: float | None = None,
    target: str | None = None,
    met: bool | None = None,
    gating: bool = True,
) -> Row:
    """A row whose ratio is worked out from its baseline (none when the baseline is zero or
    could not be measured)."""
    ratio = figure / baseline if baseline and math.isfinite(baseline) else None
    return Row(name, figure, unit, baseline, ratio, target, met, gating)


@dataclass(frozen=True)
class Outcome:
    """One benchmark's rows, or why it could not give them."""

    benchmark: str
    rows: list[Row]
    error: str | None = None


def passed(rows: Sequence[Row]) -> bool:
    return all(r.met is not False for r in rows if r.gating)


def exit_code(rows: Sequence[Row]) -> int:
    """The status a benchmark run alone exits with: non-zero when a target is missed."""
    return 0 if passed(rows) else 1


def machine() -> dict[str, str | int | None]:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def number(value: float | None) -> str:
    """Three significant figures or so, thousands grouped: enough to compare, no noise."""
    if value is None:
        return ""
    if math.isnan(value) or math.isinf(value):
        return str(value)
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 0.1 or magnitude == 0:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _verdict(r: Row) -> str:
    if r.met is None:
        return ""
    if r.met:
        return "yes"
    return "**no**" if r.gating else "no (not gating)"


def markdown(outcomes: Sequence[Outcome], about: dict[str, str | int | None]) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"{about['date']}; {about['cpus']} CPUs (`os.cpu_count()`); Python {about['python']};"
        f" {about['platform']}.",
        "",
        "Ratio = figure / baseline (for latencies lower is better, for rates higher is better).",
        "",
        "| benchmark | figure | value | unit | baseline | ratio | target | met |",
        "|---|---|---:|---|---:|---:|---|---|",
    ]
    for outcome in outcomes:
        for r in outcome.rows:
            ratio = f"{r.ratio:.2f}x" if r.ratio is not None else ""
            cells = [
                outcome.benchmark,
                r.name,
                number(r.figure),
                r.unit,
                number(r.baseline),
                ratio,
                r.target or "",
                _verdict(r),
            ]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        if outcome.error is not None:
            message = outcome.error.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {outcome.benchmark} | did not finish: {message} | | | | | | **no** |")
    verdict = "every gating target met" if all_passed(outcomes) else "a gating target missed"
    lines += ["", f"Result: {verdict}.", ""]
    return "\n".join(lines)


def all_passed(outcomes: Sequence[Outcome]) -> bool:
    return all(o.error is None and passed(o.rows) for o in outcomes)


def _finite(fields: dict[str, object]) -> dict[str, object]:
    """JSON has no NaN: a figure that could not be measured is written as null."""
    return {
        k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in fields.items()
    }


def write(outcomes: Sequence[Outcome], directory: Path) -> tuple[Path, Path]:
    """bench-results.md and bench-results.json in `directory`; their paths."""
    about = machine()
    directory.mkdir(parents=True, exist_ok=True)
    md_path, json_path = directory / "bench-results.md", directory / "bench-results.json"
    md_path.write_text(markdown(outcomes, about))
    document = {
        "machine": about,
        "passed": all_passed(outcomes),
        "benchmarks": [
            {
                "name": o.benchmark,
                "error": o.error,
                "rows": [_finite(dataclasses.asdict(r)) for r in o.rows],
            }
            for o in outcomes
        ],
    }
    json_path.write_text(json.dumps(document, indent=2, allow_nan=False) + "\n")
    return md_path, json_path

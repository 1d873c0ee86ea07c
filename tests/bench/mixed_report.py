"""What the mixed load prints, and the rows it gives the benchmark table."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tests.bench.load import LoadResult
from tests.bench.mixed_runs import (
    ANNOTATIONS_PER_DOCUMENT,
    BARE_PATHS,
    CONCURRENCY,
    DOCUMENTS,
    MIX,
    OPERATIONS,
    PACED_SHARE,
    PAGE_SIZE,
    PATHS,
    SEED,
    SUSTAINED_S,
    SUSTAINED_SHARE,
    TARGET_P99_MS,
    RunResult,
)
from tests.bench.report import Row, row


@dataclass
class Runs:
    # The system on every operation, as fast as it goes.
    full: RunResult
    # System and baseline on the list without workflow runs, as fast as each goes.
    system: RunResult
    bare: RunResult
    # The same, both at one rate both keep up with: latencies and CPU at the same load.
    paced_rate: float
    system_paced: RunResult
    bare_paced: RunResult
    # The system on every operation at SUSTAINED_SHARE of its flat-out rate, for SUSTAINED_S.
    sustained_rate: float
    sustained: RunResult


# Reporting ----------------------------------------------------------------------------------

PERCENTILES = (("p50", 0.50), ("p95", 0.95), ("p99", 0.99))
HEADER = "    endpoint               requests     rate     p50     p95     p99  errors"
BESIDE = "   bare     p50     p95     p99   ratio   p50    p95    p99"


def _errors(result: RunResult) -> tuple[int, int]:
    """Non-200 answers and requests of a run, all endpoints together."""
    requests = sum(s.requests for s in result.endpoints.values())
    return sum(s.errors for s in result.endpoints.values()), requests


def _percentile(stats: LoadResult | None, q: float) -> float:
    return stats.percentile(q) if stats is not None and stats.requests else math.nan


def _ratio(figure: float, baseline: float) -> float:
    return figure / baseline if baseline else math.nan


def _line(name: str, stats: LoadResult | None) -> str:
    if stats is None or not stats.requests:
        return f"    {name:<22} {'(none)':>8}"
    figures = " ".join(f"{stats.percentile(q):7.2f}" for _, q in PERCENTILES)
    return (
        f"    {name:<22} {stats.requests:>8,} {stats.rps:>7,.0f}/s {figures}"
        f" {stats.errors:>6} ({stats.errors / stats.requests:.1%})"
    )


def _beside(name: str, stats: LoadResult | None, bare: LoadResult | None) -> str:
    figures = " ".join(f"{_percentile(bare, q):7.2f}" for _, q in PERCENTILES)
    ratios = " ".join(
        f"{_ratio(_percentile(stats, q), _percentile(bare, q)):5.2f}x" for _, q in PERCENTILES
    )
    errors = bare.errors if bare is not None else 0
    return f"{_line(name, stats)}   bare {figures}   ratio {ratios}   bare errors {errors}"


def _comparison(title: str, system: RunResult, bare: RunResult) -> None:
    print(
        f"  {title}: system {system.ops_per_s:,.0f} operations/s,"
        f" bare {bare.ops_per_s:,.0f} operations/s"
        f" ({_ratio(system.ops_per_s, bare.ops_per_s):.2f}x);"
        f" CPU per operation: system {system.cpu_ms_per_op:.2f} ms, bare {bare.cpu_ms_per_op:.2f}"
        f" ms ({_ratio(system.cpu_ms_per_op, bare.cpu_ms_per_op):.2f}x)"
    )
    print(HEADER + BESIDE)
    for name in BARE_PATHS:
        print(_beside(name, system.endpoints.get(name), bare.endpoints.get(name)))


def _print(runs: Runs) -> None:
    mix = ", ".join(f"{share} % {kind}" for kind, share in MIX.items())
    print(
        f"mixed load: {OPERATIONS:,} operations ({mix}), {CONCURRENCY} at a time, seed {SEED};"
        f" {DOCUMENTS} documents of {ANNOTATIONS_PER_DOCUMENT}, pages of {PAGE_SIZE};"
        " latencies in ms"
    )
    full = runs.full
    print(
        f"  system, every operation, flat out: {full.ops_per_s:,.0f} operations/s"
        f" ({full.done:,} in {full.seconds:.1f} s, {full.failed} failed),"
        f" CPU per operation {full.cpu_ms_per_op:.2f} ms"
    )
    print(HEADER)
    for name in PATHS:
        print(_line(name, full.endpoints.get(name)))
    whole = LoadResult(len(full.workflow_ms), 0, full.seconds, full.workflow_ms)
    print(_line("workflow run (whole)", whole))
    print(
        "  without the workflow runs (workflow has no baseline: a dispatch and a decision are"
        " the engine's state machine; CPU leaves PostgreSQL out)"
    )
    _comparison("flat out", runs.system, runs.bare)
    _comparison(
        f"both paced at {runs.paced_rate:,.0f} operations/s ({PACED_SHARE:.0%} of the slower"
        " one's flat-out rate)",
        runs.system_paced,
        runs.bare_paced,
    )
    results = {
        "system, every operation": full,
        "system, flat out": runs.system,
        "bare, flat out": runs.bare,
        "system, paced": runs.system_paced,
        "bare, paced": runs.bare_paced,
    }
    for label, result in results.items():
        for endpoint, error in result.first_errors.items():
            print(f"  first error, {label}, {endpoint}: {error}")


def report(runs: Runs) -> list[Row]:
    _print(runs)
    rows = [
        row("throughput, every operation", runs.full.ops_per_s, "ops/s"),
        # The baseline's flat-out rate is capped by its one embedding thread (the searches):
        # the CPU per operation below is the fairer measure of what the system adds.
        row(
            "throughput, without workflow",
            runs.system.ops_per_s,
            "ops/s",
            baseline=runs.bare.ops_per_s,
        ),
        row("paced rate (both, for the rows below)", runs.paced_rate, "ops/s"),
        row(
            "CPU per operation, paced",
            runs.system_paced.cpu_ms_per_op,
            "ms",
            baseline=runs.bare_paced.cpu_ms_per_op,
        ),
    ]
    for name in BARE_PATHS:
        stats, bare = runs.system_paced.endpoints.get(name), runs.bare_paced.endpoints.get(name)
        rows += [
            row(
                f"{name} {label}, paced",
                _percentile(stats, q),
                "ms",
                baseline=_percentile(bare, q),
            )
            for label, q in PERCENTILES
        ]
    for name in ("workflow dispatch", "workflow decision"):
        stats = runs.full.endpoints.get(name)
        rows += [row(f"{name} {label}", _percentile(stats, q), "ms") for label, q in PERCENTILES]
    whole = LoadResult(len(runs.full.workflow_ms), 0, 0.0, runs.full.workflow_ms)
    rows.append(row("workflow run, dispatch to decided, p50", _percentile(whole, 0.5), "ms"))
    # Under a load this light every request should succeed: a non-200 is a bug to look at.
    system_runs = (runs.full, runs.system, runs.system_paced, runs.sustained)
    errors = sum(_errors(r)[0] for r in system_runs)
    requests = sum(_errors(r)[1] for r in system_runs)
    failed = sum(r.failed for r in system_runs)
    rows.append(
        row(
            "non-200 answers, system",
            100 * errors / max(1, requests),
            "%",
            target="0, and no failed operation",
            met=errors == 0 and failed == 0,
        )
    )
    rows += _sustained_rows(runs)
    bare_errors = sum(_errors(r)[0] for r in (runs.bare, runs.bare_paced))
    bare_requests = sum(_errors(r)[1] for r in (runs.bare, runs.bare_paced))
    rows.append(row("non-200 answers, bare", 100 * bare_errors / max(1, bare_requests), "%"))
    return rows


def _sustained_rows(runs: Runs) -> list[Row]:
    """The sustained run: its error rate, and the comments endpoints' p99 against the target."""
    held = runs.sustained
    errors, requests = _errors(held)
    print(
        f"  sustained: {held.done:,} operations in {held.seconds:.1f} s at"
        f" {runs.sustained_rate:,.0f}/s ({SUSTAINED_SHARE:.0%} of the flat-out rate),"
        f" {errors} non-200 answers of {requests:,}, {held.failed} failed operations"
    )
    print(HEADER)
    for name in PATHS:
        print(_line(name, held.endpoints.get(name)))
    rows = [
        row(
            f"sustained {SUSTAINED_S:g} s at {SUSTAINED_SHARE:.0%} of peak, non-200 answers",
            100 * errors / max(1, requests),
            "%",
            target="0",
            met=errors == 0 and held.failed == 0,
        )
    ]
    for name in ("comments get", "comments add"):
        p99 = _percentile(held.endpoints.get(name), 0.99)
        rows.append(
            row(
                f"{name} p99, sustained",
                p99,
                "ms",
                target=f"< {TARGET_P99_MS:g} ms",
                met=p99 < TARGET_P99_MS,
            )
        )
    return rows

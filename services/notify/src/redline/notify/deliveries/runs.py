"""Runs: deliveries of one URL and ordering key claimed together, which one task sends one
after another, each once the previous has its answer."""

from __future__ import annotations

from redline.notify.deliveries.storage import ClaimedDelivery


def run_limit(per_url_window: int, per_url_limit: int) -> int:
    """Deliveries of one ordering key claimed at once, sent back to back by one task: a
    document's backlog moves a run per claim, not one delivery per claim and record. As many
    as let each of a URL's tasks hold a run when its window is full."""
    return max(1, per_url_window // per_url_limit)


def runs(claimed: list[ClaimedDelivery]) -> list[list[ClaimedDelivery]]:
    """A claim's deliveries (in id order) as runs: those holding their place in line of one URL
    and ordering key together, in order (never tried, or a retry that holds its line, which the
    claim takes only as the first of its run); each other retry alone (it holds no place in its
    line)."""
    by_line: dict[tuple[str, str], list[ClaimedDelivery]] = {}
    retries: list[list[ClaimedDelivery]] = []
    for delivery in claimed:
        if delivery.attempts == 0 or delivery.retry_holds_line:
            by_line.setdefault((delivery.url, delivery.ordering_key), []).append(delivery)
        else:
            retries.append([delivery])
    return sorted([*by_line.values(), *retries], key=lambda run: run[0].id)

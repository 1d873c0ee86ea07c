"""`make bench`: run every benchmark and print its figures beside its baseline."""

from __future__ import annotations

import sys

from tests.bench import (
    access_check,
    comments_get,
    delivery_claim,
    embedders,
    memory_knowledge,
    webhook_delivery,
    workflow_executions,
    workspace_get,
)


def main() -> int:
    results = [
        workspace_get.main(),
        access_check.main(),
        comments_get.main(),
        webhook_delivery.main(),
        delivery_claim.main(),
        embedders.main(),
        memory_knowledge.main(),
        workflow_executions.main(),
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

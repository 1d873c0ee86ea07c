"""Which side of a review a judgment's decision stands on, for everything that counts
approvals and rejections (suggest, profiles, alerts).

The hosted product's reference names the decisions that count toward approval (`approved`,
`agree`, `endorse`, `document_approved`) and rejection (`rejected`, `disagree`,
`document_rejected`); Redline's workflow decisions are recorded as `approve` and `reject`, and
count the same way. Any other decision (`comment`, `resolve`, …) counts toward neither.
"""

from __future__ import annotations

from typing import Literal

Side = Literal["approve", "reject"]

APPROVING = ("approved", "agree", "endorse", "document_approved", "approve")
REJECTING = ("rejected", "disagree", "document_rejected", "reject")


def side_of(decision: str) -> Side | None:
    if decision in APPROVING:
        return "approve"
    if decision in REJECTING:
        return "reject"
    return None


def approval_rate(approvals: int, rejections: int) -> float:
    """Approvals among the decisions that approve or reject; 0 when there are none."""
    decided = approvals + rejections
    return round(approvals / decided, 4) if decided else 0.0

"""WHERE clauses built from filters: values become numbered parameters, in order."""

from __future__ import annotations

from redline.pg.conditions import Conditions


def test_values_become_numbered_parameters_in_the_order_given() -> None:
    c = Conditions()
    c.where("api_key = {}", "k1")
    c.where("(timestamp, id) < ({}, {})", 5, "a'; DROP")
    limit = c.param(10)

    assert c.conditions == ["api_key = $1", "(timestamp, id) < ($2, $3)"]
    assert c.params == ["k1", 5, "a'; DROP", 10]
    assert limit == "$4"

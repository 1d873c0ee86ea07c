"""Document count filters as the count query takes them, and the ones refused."""

from __future__ import annotations

from typing import Any

import pytest

from redline.envelope.errors import InvalidArgument
from redline.identity.directory.documents.counting import metadata_filters
from redline.identity.directory.documents.models import DocumentFilter
from redline.identity.directory.documents.storage import MetadataFilter


def where(key: str, operator: Any, value: Any) -> DocumentFilter:
    return DocumentFilter(key=key, operator=operator, value=value)


def test_keys_become_paths_without_the_metadata_prefix() -> None:
    got = metadata_filters([where("metadata.owner.team", "==", "t1"), where("kind", "in", ["a"])])

    assert got == [
        MetadataFilter(["owner", "team"], "==", "t1"),
        MetadataFilter(["kind"], "in", ["a"]),
    ]


@pytest.mark.parametrize(
    ("f", "path"),
    [
        (where("a..b", "==", 1), "data.filters[1].key"),
        (where("metadata.", "==", 1), "data.filters[1].key"),
        (where("k", "in", "x"), "data.filters[1].value"),
        (where("k", "not-in", []), "data.filters[1].value"),
        (where("k", "array-contains-any", list(range(31))), "data.filters[1].value"),
    ],
)
def test_bad_filters_are_refused_by_position(f: DocumentFilter, path: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        metadata_filters([where("ok", "==", 1), f])

    assert refused.value.details is not None
    assert [i["path"] for i in refused.value.details["issues"]] == [path]

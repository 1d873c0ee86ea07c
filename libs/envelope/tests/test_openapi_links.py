from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest

from redline.envelope import Call, Endpoint, Style
from redline.envelope.openapi import build_openapi

Id = Annotated[str, msgspec.Meta(min_length=1)]


class NewShelf(msgspec.Struct, forbid_unknown_fields=True):
    shelfId: Id
    name: str | None = None


class AddShelves(msgspec.Struct, forbid_unknown_fields=True):
    libraryId: Id
    shelves: Annotated[list[NewShelf], msgspec.Meta(min_length=1)]
    note: str | None = None


class ShelfChange(msgspec.Struct, forbid_unknown_fields=True):
    shelfId: Id
    name: str


class UpdateShelves(msgspec.Struct, forbid_unknown_fields=True):
    libraryId: Id
    shelves: list[ShelfChange]


class GetShelves(msgspec.Struct, forbid_unknown_fields=True):
    libraryId: Id
    shelfIds: list[str] | None = None


class DeleteShelf(msgspec.Struct, forbid_unknown_fields=True):
    libraryId: Id
    shelfId: Id


class CountShelves(msgspec.Struct, forbid_unknown_fields=True):
    shelfId: int  # not the type the maker holds


class MaybeShelves(msgspec.Struct, forbid_unknown_fields=True):
    libraryId: Id
    shelves: list[NewShelf]  # may be empty: its first item's id is not sure to exist


class StartLoan(msgspec.Struct, forbid_unknown_fields=True):
    shelfId: Id


class Loan(msgspec.Struct):
    loanId: str
    dueAt: int


class LoanRef(msgspec.Struct, forbid_unknown_fields=True):
    loanId: Id


async def handle(call: Call, request: Any) -> Any:
    return {}


def endpoint(path: str, request: Any, response: Any = dict[str, str], **more: Any) -> Endpoint:
    return Endpoint(path, handle, request, response, **more)


ENDPOINTS = [
    endpoint("/v2/library/shelves/add", AddShelves),
    endpoint("/v2/library/shelves/update", UpdateShelves),
    endpoint("/v2/library/shelves/get", GetShelves),
    endpoint("/v2/library/shelves/delete", DeleteShelf),
    endpoint("/v2/library/shelves/count", CountShelves),
    endpoint("/v2/library/other/get", GetShelves),
    endpoint("/v2/library/maybe/add", MaybeShelves),
    endpoint("/v2/library/maybe/get", GetShelves),
    endpoint("/v2/loans/create", StartLoan, Loan, style=Style.PLAIN),
    endpoint("/v2/loans/get", LoanRef),
]


@pytest.fixture
def doc() -> dict[str, Any]:
    return build_openapi(ENDPOINTS)


def links(doc: dict[str, Any], path: str) -> dict[str, Any]:
    found: dict[str, Any] = doc["paths"][path]["post"]["responses"]["200"].get("links", {})
    return found


def bodies(doc: dict[str, Any], path: str) -> dict[str, Any]:
    return {name: link["requestBody"]["data"] for name, link in links(doc, path).items()}


def test_an_add_links_to_the_operations_beside_it_with_the_ids_it_was_sent(
    doc: dict[str, Any],
) -> None:
    first = "$request.body#/data/shelves/0/shelfId"
    assert bodies(doc, "/v2/library/shelves/add") == {
        "v2_library_shelves_update": {
            "libraryId": "$request.body#/data/libraryId",
            "shelves": [{"shelfId": first}],
        },
        "v2_library_shelves_get": {
            "libraryId": "$request.body#/data/libraryId",
            "shelfIds": [first],
        },
        "v2_library_shelves_delete": {
            "libraryId": "$request.body#/data/libraryId",
            "shelfId": first,
        },
    }


def test_a_link_names_its_target_by_operation_id(doc: dict[str, Any]) -> None:
    for name, link in links(doc, "/v2/library/shelves/add").items():
        assert link["operationId"] == name
        assert name in {op["post"]["operationId"] for op in doc["paths"].values()}


def test_ids_of_another_type_or_another_folder_are_not_linked(doc: dict[str, Any]) -> None:
    targets = links(doc, "/v2/library/shelves/add")
    assert "v2_library_shelves_count" not in targets  # shelfId is an integer there
    assert "v2_library_other_get" not in targets  # not in the maker's folder


def test_ids_not_sure_to_be_sent_are_not_linked(doc: dict[str, Any]) -> None:
    # The list may be empty: only the required libraryId is sure to exist.
    assert bodies(doc, "/v2/library/maybe/add") == {
        "v2_library_maybe_get": {"libraryId": "$request.body#/data/libraryId"}
    }


def test_ids_the_service_made_come_from_the_answer(doc: dict[str, Any]) -> None:
    assert bodies(doc, "/v2/loans/create") == {
        "v2_loans_get": {"loanId": "$response.body#/result/loanId"}
    }


def test_only_makers_have_links(doc: dict[str, Any]) -> None:
    for path in doc["paths"]:
        if path.rsplit("/", 1)[-1] not in ("add", "create"):
            assert not links(doc, path), path

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import jsonschema
import msgspec
import pytest

from redline.envelope import AuthLevel, Call, Either, Endpoint, Reply, Style, paged
from redline.envelope.openapi import add_openapi_routes, build_openapi, ecma_pattern
from redline.testing.api import ApiClient

Serve = Callable[..., Awaitable[ApiClient]]


class Member(msgspec.Struct):
    userId: str
    role: str


class ListMembers(msgspec.Struct, forbid_unknown_fields=True):
    pageSize: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20
    pageToken: str | None = None


class AddMember(msgspec.Struct, forbid_unknown_fields=True):
    member: Member


class Created(msgspec.Struct):
    id: str


class Access(msgspec.Struct, forbid_unknown_fields=True):
    __openapi_any_of__ = (("role",), ("inherit",))

    role: str | None = None
    inherit: bool | None = None


class UpdateAccess(msgspec.Struct, forbid_unknown_fields=True):
    """Change who may see a document."""

    __openapi_exclusive__ = (("documentId", "folderId"),)
    __openapi_rule__ = "Unknown documents are created."

    access: Access
    documentId: str | None = None
    folderId: str | None = None


class Rename(msgspec.Struct, forbid_unknown_fields=True):
    __openapi_any_of__ = (("name",), ("label", "color"))

    name: str | None = None
    label: str | None = None
    color: str | None = None


class Misnamed(msgspec.Struct):
    __openapi_any_of__ = (("nmae",),)

    name: str | None = None


async def list_members(call: Call, request: ListMembers) -> Reply[list[Member]]:
    return paged([], None)


async def add_member(call: Call, request: AddMember) -> Created:
    return Created("m_1")


async def create_workspace(call: Call, request: AddMember) -> Created:
    return Created("ws_1")


async def recall(call: Call, request: ListMembers) -> Member:
    return Member("u", "r")


async def update_access(call: Call, request: UpdateAccess) -> Created:
    return Created("d_1")


async def rename(call: Call, request: Rename) -> Created:
    return Created("m_1")


ENDPOINTS = [
    Endpoint(
        "/v2/members/list",
        list_members,
        ListMembers,
        list[Member],
        summary="List members",
        tags=("members",),
        paged=True,
    ),
    Endpoint("/v2/members/add", add_member, AddMember, Created, auth=AuthLevel.WORKSPACE),
    Endpoint("/v2/workspace/create", create_workspace, AddMember, Created, auth=AuthLevel.ADMIN),
    Endpoint(
        "/v2/memory/recall", recall, ListMembers, Member, auth=AuthLevel.NONE, style=Style.PLAIN
    ),
    Endpoint("/v2/access/update", update_access, UpdateAccess, Created),
    Endpoint("/v2/members/rename", rename, Rename, Created),
]


@pytest.fixture
def doc() -> dict[str, Any]:
    return build_openapi(ENDPOINTS)


def request_schema(doc: dict[str, Any], path: str) -> dict[str, Any]:
    schema: dict[str, Any] = doc["paths"][path]["post"]["requestBody"]["content"][
        "application/json"
    ]["schema"]
    return schema


def component(doc: dict[str, Any], name: str) -> dict[str, Any]:
    schema: dict[str, Any] = doc["components"]["schemas"][name]
    return schema


def result_schema(doc: dict[str, Any], path: str) -> dict[str, Any]:
    ok = doc["paths"][path]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok["required"] == ["result"]
    result: dict[str, Any] = ok["properties"]["result"]
    return result


def test_document_is_openapi_3_1_with_one_post_per_endpoint(doc: dict[str, Any]) -> None:
    assert doc["openapi"] == "3.1.0"
    assert set(doc["paths"]) == {e.path for e in ENDPOINTS}
    assert all(set(item) == {"post"} for item in doc["paths"].values())


def test_operation_carries_summary_tags_and_id(doc: dict[str, Any]) -> None:
    op = doc["paths"]["/v2/members/list"]["post"]

    assert op["summary"] == "List members"
    assert op["tags"] == ["members"]
    assert op["operationId"] == "v2_members_list"
    assert doc["paths"]["/v2/members/add"]["post"]["summary"] == "/v2/members/add"


def test_request_schema_sits_under_data(doc: dict[str, Any]) -> None:
    schema = request_schema(doc, "/v2/members/add")

    assert schema["type"] == "object"
    assert schema["properties"] == {"data": {"$ref": "#/components/schemas/AddMember"}}
    assert schema["additionalProperties"] is False


def test_data_is_required_where_its_object_refuses_an_empty_one(doc: dict[str, Any]) -> None:
    def required(path: str) -> bool:
        body = doc["paths"][path]["post"]["requestBody"]
        due = request_schema(doc, path).get("required") == ["data"]
        assert body["required"] is due
        return due

    # Required fields.
    assert required("/v2/members/add")
    assert required("/v2/access/update")
    # No required field, but a rule that {} breaks.
    assert required("/v2/members/rename")
    # Parameterless: a missing body or `data` is read as {} and accepted.
    assert not required("/v2/members/list")
    assert "required" not in request_schema(doc, "/v2/memory/recall")


def test_any_of_rule_asks_every_field_of_one_group(doc: dict[str, Any]) -> None:
    given = {"not": {"enum": [None, []]}}

    assert component(doc, "Rename")["allOf"] == [
        {
            "anyOf": [
                {"required": ["name"], "properties": {"name": given}},
                {"required": ["label", "color"], "properties": {"label": given, "color": given}},
            ]
        }
    ]


def test_rules_of_nested_structs_reach_their_components(doc: dict[str, Any]) -> None:
    access = component(doc, "Access")

    assert [option["required"] for option in access["allOf"][0]["anyOf"]] == [
        ["role"],
        ["inherit"],
    ]


def test_exclusive_rule_and_described_rule(doc: dict[str, Any]) -> None:
    update = component(doc, "UpdateAccess")
    both = update["allOf"][0]["not"]

    assert update["allOf"] == [{"not": both}]
    assert both["required"] == ["documentId", "folderId"]
    # The docstring stays; the rule no keyword states follows it.
    assert (
        update["description"] == "Change who may see a document.\n\nUnknown documents are created."
    )


def test_rule_naming_an_unknown_field_is_refused() -> None:
    async def misnamed(call: Call, request: Misnamed) -> Created:
        return Created("x")

    with pytest.raises(TypeError, match="nmae"):
        build_openapi([Endpoint("/v2/misnamed", misnamed, Misnamed, Created)])


class Scoped(msgspec.Struct, forbid_unknown_fields=True):
    __openapi_requires__ = (("documentId", "organizationId"), ("url", "secret", "name"))

    organizationId: str | None = None
    documentId: str | None = None
    url: str | None = None
    secret: str | None = None
    name: str | None = None


@pytest.mark.parametrize(
    ("data", "fits"),
    [
        ({}, True),
        ({"organizationId": "o"}, True),
        ({"organizationId": "o", "documentId": "d"}, True),
        ({"documentId": "d"}, False),
        ({"documentId": "d", "organizationId": None}, False),
        ({"documentId": None}, True),  # a null is a field left out
        ({"url": "u", "secret": "s"}, False),
        ({"url": "u", "secret": "s", "name": "n"}, True),
        ({"secret": "s"}, True),
    ],
)
def test_requires_rule_asks_the_others_once_the_first_is_given(
    data: dict[str, Any], fits: bool
) -> None:
    async def scoped(call: Call, request: Scoped) -> Created:
        return Created("s")

    doc = build_openapi([Endpoint("/v2/scoped", scoped, Scoped, Created)])
    schema = component(doc, "Scoped")

    assert jsonschema.Draft202012Validator(schema).is_valid(data) is fits
    # {} still fits, so `data` may be left out.
    assert "required" not in request_schema(doc, "/v2/scoped")


def test_requires_rule_of_one_field_is_refused() -> None:
    class Alone(msgspec.Struct):
        __openapi_requires__ = (("name",),)

        name: str | None = None

    async def alone(call: Call, request: Alone) -> Created:
        return Created("x")

    with pytest.raises(TypeError, match="one field"):
        build_openapi([Endpoint("/v2/alone", alone, Alone, Created)])


class Slugs(msgspec.Struct, forbid_unknown_fields=True):
    # `\Z` as the service checks it: `$` would take a trailing newline too in Python.
    slug: Annotated[str, msgspec.Meta(pattern=r"^[a-z][a-z-]{2,9}\Z")]
    tags: dict[str, Annotated[str, msgspec.Meta(pattern=r"\A[\\Z]+\Z")]] | None = None


def test_patterns_are_stated_in_the_dialect_json_schema_reads() -> None:
    async def slugs(call: Call, request: Slugs) -> Created:
        return Created("s")

    doc = build_openapi([Endpoint("/v2/slugs", slugs, Slugs, Created)])
    properties = component(doc, "Slugs")["properties"]

    # ECMA-262 has no `\A` or `\Z` (a unicode-mode validator refuses them; others read a
    # literal "Z"); its `^` and `$` are the whole text's ends. An escaped backslash stays one.
    assert properties["slug"]["pattern"] == "^[a-z][a-z-]{2,9}$"
    tags = properties["tags"]["anyOf"][0]["additionalProperties"]
    assert tags["pattern"] == r"^[\\Z]+$"


@pytest.mark.parametrize(
    ("python", "ecma"),
    [
        (r"^a\Z", "^a$"),
        (r"\Aa|b\Z", "^a|b$"),
        (r"^a\\Z$", r"^a\\Z$"),  # a backslash, then a literal Z
        (r"^[\]Z]\Z", r"^[\]Z]$"),
        (r"^[]\\A]x\Z", r"^[]\\A]x$"),  # "]" first in a class is a literal
        (r"^[^]\\Z]\Z", r"^[^]\\Z]$"),
        (r"^\d{3}-\w+$", r"^\d{3}-\w+$"),
    ],
)
def test_python_anchors_become_ecma_anchors(python: str, ecma: str) -> None:
    assert ecma_pattern(python) == ecma


def test_response_schema_sits_under_result_data(doc: dict[str, Any]) -> None:
    result = result_schema(doc, "/v2/members/add")

    assert result["required"] == ["status", "message", "data"]
    assert result["properties"]["status"] == {"const": "success"}
    assert result["properties"]["data"] == {"$ref": "#/components/schemas/Created"}


def test_plain_style_documents_the_result_itself(doc: dict[str, Any]) -> None:
    assert result_schema(doc, "/v2/memory/recall") == {"$ref": "#/components/schemas/Member"}


def test_referenced_structs_are_in_components(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]

    assert {"ListMembers", "AddMember", "Member", "Created", "Error"} <= set(schemas)
    assert schemas["Member"]["required"] == ["userId", "role"]
    # Bounds declared with Meta reach the document.
    page_size = schemas["ListMembers"]["properties"]["pageSize"]
    assert (page_size["minimum"], page_size["maximum"]) == (1, 100)


def test_every_reference_resolves(doc: dict[str, Any]) -> None:
    def refs(node: Any) -> list[str]:
        if isinstance(node, dict):
            own = [node["$ref"]] if "$ref" in node else []
            return own + [r for value in node.values() for r in refs(value)]
        if isinstance(node, list):
            return [r for value in node for r in refs(value)]
        return []

    names = {ref.removeprefix("#/components/schemas/") for ref in refs(doc)}

    assert names
    assert names <= set(doc["components"]["schemas"])


def test_failures_refer_to_the_error_envelope(doc: dict[str, Any]) -> None:
    failure = doc["paths"]["/v2/members/add"]["post"]["responses"]["default"]
    error = doc["components"]["schemas"]["Error"]

    assert failure["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
    assert "NOT_FOUND" in error["properties"]["error"]["properties"]["status"]["enum"]


def test_security_follows_the_auth_level(doc: dict[str, Any]) -> None:
    def security(path: str) -> Any:
        return doc["paths"][path]["post"]["security"]

    assert security("/v2/members/list") == [{"apiKey": [], "authToken": []}]
    assert security("/v2/members/add") == [{"workspaceId": [], "workspaceToken": []}]
    # Admin token, or nothing at all when signup is open.
    assert security("/v2/workspace/create") == [{"adminToken": []}, {}]
    assert security("/v2/memory/recall") == []


def test_security_schemes_name_the_brand_headers() -> None:
    schemes = build_openapi(ENDPOINTS, brand="acme")["components"]["securitySchemes"]

    assert schemes["apiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "x-acme-api-key",
        "description": "API key",
    }
    assert schemes["workspaceToken"]["name"] == "x-acme-workspace-auth-token"
    assert schemes["adminToken"]["name"] == "x-acme-admin-token"


def test_paged_endpoints_document_next_page_token(doc: dict[str, Any]) -> None:
    listed = result_schema(doc, "/v2/members/list")["properties"]
    added = result_schema(doc, "/v2/members/add")["properties"]

    assert listed["nextPageToken"]["type"] == "string"
    assert "nextPageToken" not in added
    assert listed["data"] == {"type": "array", "items": {"$ref": "#/components/schemas/Member"}}


async def test_openapi_json_route_serves_the_apps_endpoints(serve: Serve) -> None:
    api = await serve(ENDPOINTS[:2], setup=add_openapi_routes)

    async with api.session.get(api.base_url + "/openapi.json") as response:
        assert response.status == 200
        assert response.content_type == "application/json"
        served = await response.json()

    assert served["openapi"] == "3.1.0"
    assert set(served["paths"]) == {"/v2/members/list", "/v2/members/add"}
    assert served["components"]["securitySchemes"]["apiKey"]["name"] == "x-redline-api-key"


@pytest.mark.parametrize("brand", ["acme", "acme-corp"])
async def test_openapi_json_route_names_the_primary_brand(serve: Serve, brand: str) -> None:
    api = await serve(ENDPOINTS, brands=[brand, "redline"], setup=add_openapi_routes)

    async with api.session.get(api.base_url + "/openapi.json") as response:
        served = await response.json()

    assert served["components"]["securitySchemes"]["apiKey"]["name"] == f"x-{brand}-api-key"


async def test_docs_route_serves_html(serve: Serve) -> None:
    api = await serve(ENDPOINTS, setup=add_openapi_routes)

    async with api.session.get(api.base_url + "/docs") as response:
        assert response.status == 200
        assert response.content_type == "text/html"
        page = await response.text()

    assert page.startswith("<!doctype html>")
    assert "/openapi.json" in page


def test_either_answer_is_the_any_of_its_types() -> None:
    async def either(call: Call, request: AddMember) -> Created | dict[str, Created]:
        return Created("e")

    doc = build_openapi(
        [
            Endpoint("/v2/either", either, AddMember, Either(Created, dict[str, Created])),
            Endpoint("/v2/plain", add_member, AddMember, Created),
        ]
    )
    data = result_schema(doc, "/v2/either")["properties"]["data"]
    validator = jsonschema.Draft202012Validator(
        {**data, "components": doc["components"]},
    )

    assert data["anyOf"][0] == {"$ref": "#/components/schemas/Created"}
    assert validator.is_valid({"id": "one"})
    assert validator.is_valid({"k1": {"id": "one"}, "k2": {"id": "two"}})
    assert not validator.is_valid({"k1": "one"})
    assert result_schema(doc, "/v2/plain")["properties"]["data"] == {
        "$ref": "#/components/schemas/Created"
    }

"""Tenancy across every endpoint: workspaces A and B make the same ids, A also makes ids of its
own; B then calls every POST route of /openapi.json naming A-only state, and must neither see A's
data nor change it. The routes come from the served document, so a new one fails the matrix
until it is classified here.

Also: a user token granted one document reaches no other of its workspace, and B's knowledge
search never finds A's source, even for the same text and the same query.
"""

from __future__ import annotations

import json
from typing import Any

from redline.testing.api import ApiClient, Workspace
from tests.api.knowledge_support import TEXT, ingest, inline, search, settled
from tests.api.openapi_support import envelope_paths
from tests.api.tenancy_routes import matrix
from tests.api.tenancy_support import (
    ACTIVITY,
    DEFINITION,
    DOC,
    FOLDER,
    NOTE,
    ORG,
    SUGGESTION,
    USER,
    Json,
    Seeded,
    leaks,
    review,
    seed,
    snapshot,
    until,
)
from tests.api.test_hostile_input import api, doc, is_batch_outcome

__all__ = ["api", "doc"]  # limits out of reach in process: the sweep sends many requests


def own_changes(b: Seeded) -> list[tuple[str, Json]]:
    """Changes B makes to its own copies of the ids both have, in order: one missing its
    workspace filter would reach A's copy too. They run after the matrix, which reads B's copies."""
    acme = {"organizationId": ORG}
    on_doc = {**acme, "documentId": DOC}
    b_comment = {**on_doc, "annotationId": NOTE, "commentId": b.comments[NOTE]}
    return [
        ("/v2/organizations/update", {"organizations": [{"organizationId": ORG, "metadata": {}}]}),
        ("/v2/organizations/documents/update", {**acme, "documents": [{"documentId": DOC}]}),
        (
            "/v2/organizations/documents/access/update",
            {**acme, "documentIds": [DOC], "accessType": "restricted"},
        ),
        ("/v2/organizations/folders/update", {**acme, "folders": [{"folderId": FOLDER}]}),
        ("/v2/users/update", {**acme, "users": [{"userId": USER, "name": "x"}]}),
        ("/v2/commentannotations/comments/update", {**b_comment, "commentText": "x"}),
        (
            "/v2/commentannotations/reactions/delete",
            {**b_comment, "icon": "heart", "user": {"userId": "carol"}},
        ),
        ("/v2/activities/update", {**acme, "activityId": ACTIVITY, "actionType": "x"}),
        ("/v2/activities/delete", {**acme, "activityIds": [ACTIVITY]}),
        ("/v2/commentannotations/delete", {**on_doc, "annotationIds": [NOTE, SUGGESTION]}),
        ("/v2/workflow/definitions/update", {**review(DEFINITION, "x"), "ifVersion": 1}),
        ("/v2/memory/knowledge/delete", {"sourceId": b.source_id}),
        ("/v2/users/delete", {**acme, "userIds": [USER]}),
        ("/v2/organizations/folders/delete", {**acme, "folderId": FOLDER}),
        ("/v2/organizations/documents/migrate", {**on_doc, "newDocumentId": "b-moved"}),
    ]


async def two_workspaces(api: ApiClient) -> tuple[Seeded, Seeded]:
    a_ws = await api.create_workspace("owner@alpha.example")
    b_ws = await api.create_workspace("owner@bravo.example")
    a = await seed(api, a_ws, "alpha", a_only=True)
    b = await seed(api, b_ws, "bravo", a_only=False)
    return a, b


def ended(result: Json) -> bool:
    """A migration is over: B's of an id it does not have may fail, and that is its own."""
    return result["data"]["status"] in ("completed", "failed")


def headers_of(ws: Workspace, credentials: str) -> dict[str, str]:
    return {"key": ws.key_headers, "workspace": ws.workspace_headers, "none": {}}[credentials]


async def test_the_table_classifies_every_route_and_b_neither_sees_nor_changes_a(
    api: ApiClient, doc: Json
) -> None:
    a, b = await two_workspaces(api)
    table = matrix(a, b)
    # Raw routes are opened by a signature or token of their own, never a workspace's
    # credentials: their strangers are fuzzed by tests/api/test_fuzz_raw_routes.py.
    paths = envelope_paths(doc)
    assert all(set(doc["paths"][path]) == {"post"} for path in paths)
    assert sorted(set(paths) - set(table)) == [], "routes not in the tenancy table"
    assert sorted(set(table) - set(paths)) == [], "the table names routes that are gone"
    for path, probe in table.items():
        names_a = any(s in json.dumps(probe.bodies) for s in a.secrets())
        # A route either names A-only state in some body, or says why it takes no such id.
        assert names_a != bool(probe.why), path

    before = await snapshot(api, a)
    answers: dict[str, list[Any]] = {}
    leaked, failed, invalid = [], [], []
    migrations: list[str] = []  # B's, which run in the background: A is compared once they end
    for path in sorted(paths, key=lambda p: (table[p].makes, p)):
        probe = table[path]
        for body in probe.bodies:
            response = await api.post(path, body, headers=headers_of(b.ws, probe.credentials))
            answers.setdefault(path, []).append(response.body)
            if response.status >= 500 and not is_batch_outcome(response.status, response.body):
                failed.append((path, body, response.status, response.body))
            if response.status == 400 and response.body["error"]["status"] == "INVALID_ARGUMENT":
                invalid.append((path, body, response.body))
            found = leaks(a, body, response.body)
            if found:
                leaked.append((path, body, found, response.body))
            if path.endswith("/migrate") and response.status == 200:
                migrations.append(response.data["migrationId"])
    for path, body in own_changes(b):
        response = await api.post(path, body, headers=b.ws.key_headers)
        assert response.status == 200 or is_batch_outcome(response.status, response.body), (
            path,
            response.body,
        )
        found = leaks(a, body, response.body)
        if found:
            leaked.append((path, body, found, response.body))
        if path.endswith("/migrate"):
            migrations.append(response.data["migrationId"])
    for migration_id in migrations:
        status = {"organizationId": ORG, "migrationId": migration_id}
        await until(api, b.ws, "/v2/organizations/documents/migrate/status", status, ended)
    assert not failed, json.dumps(failed, indent=1)[:4000]
    # Each body passes validation, so the probe reaches the lookup of the ids it names.
    assert not invalid, json.dumps(invalid, indent=1)[:6000]
    assert not leaked, json.dumps(leaked, indent=1)[:4000]
    after = await snapshot(api, a)
    changed = {k: (before[k], after.get(k)) for k in before if before[k] != after.get(k)}
    assert not changed, json.dumps(changed, indent=1)[:4000]
    # A's upload is still A's to ingest: B's ingest naming it did not use it up.
    by_ref = {"source": "fileRef", "fileRef": a.file_ref, "mimeType": TEXT}
    source_id = await ingest(api, a.ws, by_ref)
    assert (await settled(api, a.ws, source_id))["status"] == "completed"
    # The checks above are not vacuous: where both have the id, B got its own data.
    own = json.dumps(answers["/v2/commentannotations/get"][0])
    assert "bravo secret comment" in own, own
    own = json.dumps(answers["/v2/workflow/definitions/get"][1])
    assert "bravo definition" in own, own


def comment_on(document: str, note: str, user_id: str, text: str) -> Json:
    data = [{"from": {"userId": user_id}, "commentText": text}]
    return {
        "organizationId": ORG,
        "documentId": document,
        "commentAnnotations": [{"annotationId": note, "commentData": data}],
    }


async def test_a_user_token_for_one_document_reaches_no_other_document(api: ApiClient) -> None:
    ws = await api.create_workspace("owner@tokens.example")
    for document, note in (("granted", "n-granted"), ("other", "n-other")):
        added = await api.post(
            "/v2/commentannotations/add",
            {
                **comment_on(document, note, "owner", f"{document} secret"),
                "createDocument": True,
                "createOrganization": True,
            },
            headers=ws.key_headers,
        )
        assert added.status == 200, added.body
    [other_comment] = added.data["n-other"]["commentIds"]
    # Organization-private documents: the token's grant on one is all the user has.
    private = {"organizationId": ORG, "documentIds": ["granted", "other"]}
    private["accessType"] = "organizationPrivate"
    changed = await api.post(
        "/v2/organizations/documents/access/update", private, headers=ws.key_headers
    )
    assert changed.status == 200, changed.body
    grant = {"type": "document", "id": "granted", "organizationId": ORG, "accessRole": "editor"}
    made = await api.post(
        "/v2/auth/generate_token",
        {"userId": "scoped", "permissions": {"resources": [grant]}},
        headers=ws.key_headers,
    )
    assert made.status == 200, made.body
    scoped = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": made.data["token"]}
    before = await api.post(
        "/v2/commentannotations/get", {"organizationId": ORG}, headers=ws.key_headers
    )

    on_other = {"organizationId": ORG, "documentId": "other", "annotationId": "n-other"}
    on_comment = {**on_other, "commentId": other_comment}
    reads = [
        ("/v2/commentannotations/get", {"organizationId": ORG}),
        ("/v2/commentannotations/get", {"organizationId": ORG, "documentId": "other"}),
        ("/v2/commentannotations/get", {"organizationId": ORG, "annotationIds": ["n-other"]}),
        ("/v1/commentannotations/comments/get", on_other),
    ]
    for path, data in reads:
        response = await api.post(path, data, headers=scoped)
        assert "other secret" not in json.dumps(response.body), (path, response.body)
    writes = [
        ("/v2/commentannotations/add", comment_on("other", "n-new", "scoped", "x")),
        (
            "/v2/commentannotations/comments/add",
            {**on_other, "commentData": [{"from": {"userId": "scoped"}, "commentText": "x"}]},
        ),
        ("/v2/commentannotations/comments/update", {**on_comment, "commentText": "x"}),
        (
            "/v2/commentannotations/reactions/add",
            {**on_comment, "icon": "heart", "user": {"userId": "scoped"}},
        ),
        (
            "/v2/commentannotations/update",
            {"organizationId": ORG, "documentId": "other", "updatedData": [{"context": {"x": 1}}]},
        ),
        ("/v1/commentannotations/comments/delete", on_other),
        ("/v2/commentannotations/delete", {"organizationId": ORG, "documentId": "other"}),
    ]
    for path, data in writes:
        response = await api.post(path, data, headers=scoped)
        assert response.status in (403, 404), (path, response.body)
    after = await api.post(
        "/v2/commentannotations/get", {"organizationId": ORG}, headers=ws.key_headers
    )
    assert after.body == before.body

    # The same token does read and write the document it was granted.
    own = await api.post(
        "/v2/commentannotations/get",
        {"organizationId": ORG, "documentId": "granted"},
        headers=scoped,
    )
    assert "granted secret" in json.dumps(own.body), own.body
    reply = await api.post(
        "/v2/commentannotations/add", comment_on("granted", "n-new", "scoped", "x"), headers=scoped
    )
    assert reply.status == 200, reply.body


async def test_the_same_text_in_two_workspaces_is_found_only_by_its_owner(
    api: ApiClient,
) -> None:
    a = await api.create_workspace("owner@alpha.example")
    b = await api.create_workspace("owner@bravo.example")
    text = b"Hotel stays are reimbursed up to 150 euros per night in capital cities.\n"
    a_id = await ingest(api, a, inline(text, TEXT, "travel.txt"))
    b_id = await ingest(api, b, inline(text, TEXT, "travel.txt"))
    assert (await settled(api, a, a_id))["status"] == "completed"
    assert (await settled(api, b, b_id))["status"] == "completed"

    for query in (text.decode(), "how much is a hotel night paid back?"):
        for ws, own in ((b, b_id), (a, a_id)):
            found = await search(api, ws, query, includeRules=True)
            assert found["results"], found
            assert {r["sourceId"] for r in found["results"]} == {own}, found
    # Naming A's source does not reach it either, alone or beside B's own.
    assert (await search(api, b, text.decode(), sourceId=a_id))["results"] == []
    both = await search(api, b, text.decode(), sourceId=[a_id, b_id])
    assert {r["sourceId"] for r in both["results"]} == {b_id}
    listed = await api.post("/v2/memory/knowledge/list", {}, headers=b.key_headers)
    assert [source["id"] for source in listed.result] == [b_id]

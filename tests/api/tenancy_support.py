"""Two workspaces with the same ids, for the tenancy tests: what each one makes, what of A must
never show up in B's answers, and a snapshot of A's state read through A's own endpoints."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from redline.testing.api import ApiClient, Workspace
from tests.api.knowledge_support import TEXT, ingest, inline, settled
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent

Json = dict[str, Any]

# Ids both workspaces make.
ORG, FOLDER, DOC, USER = "acme", "vault", "d1", "u1"
NOTE, SUGGESTION, ACTIVITY, DEFINITION = "note-1", "s-1", "act-1", "review"
GROUP = "team"
NOTIFICATION = "ntf-1"
# Ids only A makes. None holds A's tag, so that B naming one in a request may see it echoed.
A_ORG, A_FOLDER, A_DOC, A_USER = "a-only-org", "a-only-folder", "a-only-doc", "a-only-user"
A_NOTE, A_IDEA, A_ACTIVITY = "a-only-note", "a-only-idea", "a-only-act"
A_DEFINITION, A_OLD, A_NEW = "a-only-def", "a-only-old", "a-only-new"
A_DOMAIN = "a-only.example"
A_ENDPOINT = "a-only-endpoint"  # the uid of A's advanced webhook endpoint
A_NOTIFICATION = "a-only-ntf"
A_DOC_NOTE = "a-only-doc-note"  # on A_DOC, so that what B does to that id could reach it
A_GROUP = "a-only-group"
A_ONLY_IDS = (
    A_ORG,
    A_FOLDER,
    A_DOC,
    A_USER,
    A_NOTE,
    A_IDEA,
    A_ACTIVITY,
    A_DEFINITION,
    A_OLD,
    A_NEW,
    A_DOMAIN,
    A_DOC_NOTE,
    A_GROUP,
    A_ENDPOINT,
    A_NOTIFICATION,
)


@dataclass
class Seeded:
    """One workspace's state: its tag is in every name and text it wrote."""

    ws: Workspace
    tag: str
    source_id: str = ""
    migration_id: str = ""
    erasure_job_id: str = ""
    file_ref: str = ""  # a file A uploaded and has not ingested yet
    domain_request: str = ""  # a domain request A keeps open
    endpoint_id: str = ""  # A's advanced webhook endpoint
    endpoint_secret: str = ""  # its signing secret
    comments: dict[str, int] = field(default_factory=dict)  # annotation id -> its first comment
    # definition id -> (execution id, id of its waiting human step)
    waiting: dict[str, tuple[str, str]] = field(default_factory=dict)

    def secrets(self) -> list[str]:
        """What of this workspace no other may see, unless it named it in its own request."""
        made = [self.source_id, self.migration_id, self.erasure_job_id, self.file_ref]
        made += [self.domain_request]
        made += [self.ws.id, self.ws.token]
        made += [self.endpoint_id, self.endpoint_secret]
        made += [self.ws.api_key, self.ws.auth_token]
        made += [i for pair in self.waiting.values() for i in pair]
        return [self.tag, *A_ONLY_IDS, *(m for m in made if m)]


def leaks(a: Seeded, sent: Any, answer: Any) -> list[str]:
    """A's secrets in `answer` that `sent` (B's request) did not itself name."""
    request = json.dumps(sent).lower()
    found = json.dumps(answer).lower()
    return [s for s in a.secrets() if s.lower() in found and s.lower() not in request]


async def ok(api: ApiClient, ws: Workspace, path: str, data: Json) -> Any:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, f"{path}: {response.body}"
    return response.result


def comment(user_id: str, text: str, **extra: Any) -> Json:
    return {"from": {"userId": user_id}, "commentText": text, **extra}


def agent_comment(text: str) -> Json:
    """A comment from an agent: rejecting its suggestion with a reason records a judgment."""
    reason = {"title": "Style", "description": text, "severity": "low", "issueType": "style"}
    agent = {"agentSource": "svc", "agentId": "style-checker", "reason": reason}
    return comment("bot", text, agent=agent)


def review(definition_id: str, tag: str) -> Json:
    return definition(
        definition_id,
        [
            human("review", (USER, True), comment_body=f"{tag} review body"),
            mock_agent("ship"),
            mock_agent("fix"),
        ],
        [edge("review", "ship", "approve"), edge("review", "fix", "reject")],
        description=f"{tag} definition",
    )


async def seed(api: ApiClient, ws: Workspace, tag: str, *, a_only: bool) -> Seeded:
    """Everything of the brief in `ws`, named with the shared ids; with `a_only`, also the ids
    only A has. Every name, text and value carries `tag`."""
    s = Seeded(ws, tag)
    in_org = {"organizationId": ORG}
    meta = {"secret": f"{tag}-value"}
    orgs = [{"organizationId": ORG, "organizationName": f"{tag} Acme", "metadata": meta}]
    if a_only:
        orgs.append({"organizationId": A_ORG, "organizationName": f"{tag} other"})
    await ok(api, ws, "/v2/organizations/add", {"organizations": orgs})
    folders = [{"folderId": FOLDER, "folderName": f"{tag} vault", "metadata": meta}]
    folders += [{"folderId": A_FOLDER, "folderName": f"{tag} hidden"}] if a_only else []
    await ok(api, ws, "/v2/organizations/folders/add", {"organizationId": ORG, "folders": folders})
    docs = [{"documentId": DOC, "documentName": f"{tag} contract", "metadata": meta}]
    docs += [{"documentId": d, "documentName": f"{tag} {d}"} for d in (A_DOC, A_OLD) if a_only]
    await ok(api, ws, "/v2/organizations/documents/add", {"organizationId": ORG, "documents": docs})
    if a_only:
        other = {"organizationId": A_ORG, "documents": [{"documentId": DOC}]}
        await ok(api, ws, "/v2/organizations/documents/add", other)
    users = [{"userId": USER, "name": f"{tag} User", "email": f"{USER}@{tag}.example"}]
    users += [{"userId": A_USER, "name": f"{tag} Only"}] if a_only else []
    await ok(api, ws, "/v2/users/add", {"organizationId": ORG, "users": users})
    groups = [(GROUP, USER), (A_GROUP, A_USER)][: 2 if a_only else 1]
    made = [{"groupId": g, "groupName": f"{tag} {g}"} for g, _ in groups]
    await ok(
        api, ws, "/v2/organizations/usergroups/add", {**in_org, "organizationUserGroups": made}
    )
    for group_id, user_id in groups:
        members = {**in_org, "organizationUserGroupId": group_id, "userIds": [user_id]}
        await ok(api, ws, "/v2/organizations/usergroups/users/add", members)
    for d in (DOC, A_DOC)[: 2 if a_only else 1]:
        grant = {"type": "document", "id": d, "organizationId": ORG, "accessRole": "editor"}
        user = {"user": {"userId": USER}, "permissions": {"resources": [grant]}}
        await ok(api, ws, "/v2/auth/permissions/add", user)

    notes = [{"annotationId": NOTE, "commentData": [comment("alice", f"{tag} secret comment")]}]
    notes.append(
        {"annotationId": SUGGESTION, "type": "suggestion", "commentData": [agent_comment(tag)]}
    )
    if a_only:
        notes.append({"annotationId": A_NOTE, "commentData": [comment("alice", f"{tag} note")]})
        notes.append(
            {
                "annotationId": A_IDEA,
                "type": "suggestion",
                "commentData": [comment("alice", f"{tag} idea")],
            }
        )
    where = {"organizationId": ORG, "documentId": DOC}
    added = await ok(api, ws, "/v2/commentannotations/add", {**where, "commentAnnotations": notes})
    if a_only:
        on_a_doc = [{"annotationId": A_DOC_NOTE, "commentData": [comment("alice", f"{tag} doc")]}]
        on_a_doc_where = {**where, "documentId": A_DOC, "commentAnnotations": on_a_doc}
        await ok(api, ws, "/v2/commentannotations/add", on_a_doc_where)
    s.comments = {n: outcome["commentIds"][0] for n, outcome in added["data"].items()}
    for note in (NOTE, A_NOTE)[: 2 if a_only else 1]:
        reaction = {"annotationId": note, "commentId": s.comments[note], "icon": "heart"}
        reaction["user"] = {"userId": "carol"}
        await ok(api, ws, "/v2/commentannotations/reactions/add", {**where, **reaction})
    rejected = {"annotationId": SUGGESTION, "action": "reject", "user": {"userId": "carol"}}
    rejected["reason"] = f"{tag} reason: the passive voice hides who acts"
    await ok(api, ws, "/v2/commentannotations/suggestions/resolve", {**where, **rejected})

    activities = [
        {"id": ACTIVITY, "actionType": "draft", "changes": {"title": {"to": meta["secret"]}}}
    ]
    activities += (
        [{"id": A_ACTIVITY, "actionType": "draft", "changes": {"title": {"to": meta["secret"]}}}]
        if a_only
        else []
    )
    await ok(api, ws, "/v2/activities/add", {**where, "activities": activities})
    notified = [(NOTIFICATION, USER)] + ([(A_NOTIFICATION, A_USER)] if a_only else [])
    for notification_id, user_id in notified:
        notification = {
            **where,
            "notificationId": notification_id,
            "actionUser": {"userId": "alice"},
            "displayHeadlineMessageTemplate": f"{tag} headline",
            "displayBodyMessage": f"{tag} body",
            "notifyUsers": [{"userId": user_id}, {"userId": USER}],
            "notifyAll": False,
        }
        await ok(api, ws, "/v2/notifications/add", notification)
    config = {"organizationId": ORG, "userIds": [USER], "config": {"inbox": "MINE"}}
    await ok(api, ws, "/v2/notifications/config/set", config)

    await ok(api, ws, "/v2/memory/alerts/config/update", {"config": {"owner": f"{tag} team"}})
    text = f"{tag} handbook: refunds are paid to the original card within five days.\n"
    s.source_id = await ingest(api, ws, inline(text.encode(), TEXT, f"{tag}.txt"))

    flow = Workflow(api, ws)
    for definition_id in (DEFINITION, A_DEFINITION)[: 2 if a_only else 1]:
        await flow.create(review(definition_id, tag))
        execution_id = await flow.dispatch(definition_id, correlationId=f"{tag}-run")
        s.waiting[definition_id] = (execution_id, await flow.waiting_step(execution_id, "review"))

    # Both may manage endpoints, so that B's probes reach the lookup of A's endpoint. A's is
    # disabled: deliveries to it would change A's delivery log while the matrix runs.
    await ok(api, ws, "/v2/workspace/advancedwebhookconfig/update", {"isEnabled": True})
    if a_only:
        hook = {"url": f"https://{tag}-hook.example.com/", "uid": A_ENDPOINT, "disabled": True}
        hook["description"] = f"{tag} endpoint"
        endpoint = await ok(api, ws, "/v2/workspace/advancedwebhook/endpoints/create", hook)
        s.endpoint_id = endpoint["data"]["id"]
        ref = {"endpointId": s.endpoint_id}
        secret = await ok(api, ws, "/v2/workspace/advancedwebhook/endpoints/secret/get", ref)
        s.endpoint_secret = secret["data"]["secret"]
        data = f"{tag} upload: travel is booked in economy class.\n".encode()
        asked = {"mimeType": TEXT, "fileSize": len(data), "fileName": "upload.txt"}
        upload = await ok(api, ws, "/v2/memory/knowledge/upload-url", asked)
        headers = {"Content-Type": TEXT}
        async with api.session.put(upload["uploadUrl"], data=data, headers=headers) as put:
            assert put.status == 200, await put.text()
        s.file_ref = upload["fileRef"]
        await ok(api, ws, "/v2/workspace/domains/add", {"domains": [A_DOMAIN]})
        asked_for = {"domain": f"{tag}.example", "organizationId": ORG, "clientDocumentId": A_DOC}
        requested = await ok(api, ws, "/v2/workspace/domains/request", asked_for)
        s.domain_request = requested["data"]["id"]
        moved = {"organizationId": ORG, "documentId": A_OLD, "newDocumentId": A_NEW}
        started = await ok(api, ws, "/v2/organizations/documents/migrate", moved)
        s.migration_id = started["data"]["migrationId"]
        status = {"organizationId": ORG, "migrationId": s.migration_id}
        await until(api, ws, "/v2/organizations/documents/migrate/status", status, migrated)
        erased = await ok(api, ws, "/v2/users/data/delete", {"userIds": [f"{tag}-gone"]})
        s.erasure_job_id = erased["data"]["jobId"]
        job = {"jobId": s.erasure_job_id}
        await until(api, ws, "/v2/users/data/delete/status", job, erasure_completed)
    assert (await settled(api, ws, s.source_id))["status"] == "completed"
    await until(api, ws, "/v2/memory/judgments/query", {}, lambda r: r["total"] >= 1)
    return s


def erasure_completed(result: Json) -> bool:
    done: bool = result["data"]["isDeleteCompleted"]
    return done


def migrated(result: Json) -> bool:
    status: str = result["data"]["status"]
    assert status != "failed", result
    return status == "completed"


async def until(api: ApiClient, ws: Workspace, path: str, data: Json, done: Any) -> Any:
    async with asyncio.timeout(60):
        while True:
            result = await ok(api, ws, path, data)
            if done(result):
                return result
            await asyncio.sleep(0.1)


def reads(a: Seeded) -> list[tuple[str, Json]]:
    """A's own reads that show everything A made (key credentials)."""
    acme = {"organizationId": ORG}
    found: list[tuple[str, Json]] = [
        ("/v2/organizations/get", {}),
        ("/v2/organizations/documents/get", acme),
        ("/v2/organizations/documents/get", {"organizationId": A_ORG}),
        ("/v2/organizations/folders/get", acme),
        ("/v2/users/get", acme),
        ("/v2/users/get", {**acme, "documentId": A_DOC}),
        ("/v2/users/get", {**acme, "organizationUserGroupIds": [GROUP]}),
        ("/v2/users/get", {**acme, "organizationUserGroupIds": [A_GROUP]}),
        (
            "/v2/auth/permissions/get",
            {**acme, "userIds": [USER, A_USER], "documentIds": [DOC, A_DOC, A_NEW]},
        ),
        ("/v2/commentannotations/get", acme),
        ("/v1/commentannotations/comments/get", {**acme, "documentId": DOC, "annotationId": NOTE}),
        (
            "/v1/commentannotations/comments/get",
            {**acme, "documentId": DOC, "annotationId": A_NOTE},
        ),
        ("/v2/commentannotations/count/get", {**acme, "documentIds": [DOC, A_DOC], "userId": USER}),
        ("/v2/activities/get", acme),
        ("/v2/notifications/get", {**acme, "userId": USER}),
        ("/v2/notifications/get", {**acme, "documentId": DOC}),
        ("/v2/notifications/config/get", {**acme, "userId": USER, "getOrganizationConfig": True}),
        ("/v2/workspace/notificationconfig/get", {}),
        ("/v2/memory/knowledge/list", {}),
        ("/v2/memory/knowledge/ingest-status", {"sourceId": a.source_id}),
        ("/v2/memory/knowledge/rules", {"sourceId": a.source_id}),
        ("/v2/memory/judgments/query", {}),
        ("/v2/memory/patterns/get", {}),
        ("/v2/memory/knowledge/download", {"sourceId": a.source_id}),
        ("/v2/memory/alerts/config/get", {}),
        ("/v2/memory/alerts/list", {}),
        ("/v2/memory/stats/get", {}),
        ("/v2/organizations/documents/migrate/status", {**acme, "migrationId": a.migration_id}),
        ("/v2/users/data/get", {**acme, "userId": USER}),
        ("/v2/users/data/get", {**acme, "userId": A_USER}),
        ("/v2/users/data/delete/status", {"jobId": a.erasure_job_id}),
        ("/v2/workflow/definitions/list", {}),
        ("/v2/workflow/executions/list", {}),
        ("/v2/workspace/activityconfig/get", {}),
        ("/v2/workspace/webhookconfig/get", {}),
        ("/v2/workspace/advancedwebhookconfig/get", {}),
        ("/v2/workspace/domains/get", {}),
        ("/v2/workspace/requested/domains/get", {}),
        ("/v2/workspace/apikeyconfig/get", {}),
        ("/v2/webhooks/deliveries/list", {}),
        ("/v2/workspace/advancedwebhook/endpoints/get", {}),
        ("/v2/workspace/advancedwebhook/endpoints/secret/get", {"endpointId": a.endpoint_id}),
    ]
    for definition_id, (execution_id, _) in a.waiting.items():
        found.append(("/v2/workflow/definitions/get", {"definitionId": definition_id}))
        found.append(("/v2/workflow/executions/get", {"executionId": execution_id}))
        found.append(("/v2/workflow/executions/getEvents", {"executionId": execution_id}))
    return found


def stable(value: Any) -> Any:
    """`value` without what each read mints anew: a download link is signed per read, with a
    fresh expiry, so only its path is kept."""
    if isinstance(value, dict):
        return {
            k: v.split("?", 1)[0] if k.endswith("DownloadUrl") and v else stable(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


async def snapshot(api: ApiClient, a: Seeded) -> dict[str, Any]:
    """A's state as A reads it: every answer of `reads`, and the workspace-level reads."""
    state: dict[str, Any] = {}
    for path, data in reads(a):
        response = await api.post(path, data, headers=a.ws.key_headers)
        assert response.status == 200, f"{path}: {response.body}"
        state[f"{path} {json.dumps(data, sort_keys=True)}"] = stable(response.body)
    for path, data in (
        ("/v2/workspace/get", {}),
        ("/v2/workspace/apikeys/get", {}),
        ("/v2/workspace/authtokens/get", {"apiKey": a.ws.api_key}),
    ):
        response = await api.post(path, data, headers=a.ws.workspace_headers)
        assert response.status == 200, f"{path}: {response.body}"
        state[path] = stable(response.body)
    return state

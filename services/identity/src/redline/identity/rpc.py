"""What identity answers on NATS: the questions other services ask it (`rpc.identity.*`):
credential checks, access decisions, a key's settings, documents, users and groups."""

from __future__ import annotations

from nats.aio.subscription import Subscription

from redline.bus import Bus, rpc
from redline.envelope import AuthVerifier
from redline.identity.directory.disable_state.service import DisableStateService
from redline.identity.directory.documents.storage import document_ids_in_folder
from redline.identity.directory.ensure import ensure_for_service
from redline.identity.directory.user_groups.service import UserGroupService
from redline.identity.key_settings.service import KeySettingsService
from redline.identity.permissions.access import AccessService
from redline.identity.users.storage import contacts
from redline.pg import Pool
from redline.proto.rpc import (
    AccessCheck,
    AccessDecision,
    ApiKeyConfig,
    AuthVerified,
    AuthVerifyRequest,
    ConfigGetRequest,
    DisableState,
    DisableStateQuery,
    EnsuredDocument,
    EnsureDocument,
    FolderDocuments,
    GroupMember,
    ListFolderDocuments,
    UserContacts,
    UserContactsGet,
    UserGroupMembers,
    UserGroupMembersGet,
    VerifyApiKey,
)
from redline.proto.subjects import (
    RPC_ACCESS_CHECK,
    RPC_AUTH_VERIFY,
    RPC_CONFIG_GET,
    RPC_DISABLE_STATE,
    RPC_DOCUMENTS_ENSURE,
    RPC_DOCUMENTS_IN_FOLDER,
    RPC_USER_CONTACTS,
    RPC_USER_GROUP_MEMBERS,
)
from redline.runtime.auth import verified_reply


async def serve_auth_verify(bus: Bus, verifier: AuthVerifier) -> Subscription:
    async def verify(request: AuthVerifyRequest) -> AuthVerified:
        if isinstance(request, VerifyApiKey):
            key = await verifier.verify_api_key(request.apiKey, request.token)
            return verified_reply(key)
        ws = await verifier.verify_workspace(request.workspaceId, request.token)
        return AuthVerified(workspaceId=ws.workspace_id)

    return await rpc.serve(bus.nc, RPC_AUTH_VERIFY, AuthVerifyRequest, verify)  # type: ignore[arg-type]


async def serve_access_check(bus: Bus, access: AccessService) -> Subscription:
    """Other services ask what a user may do on a document (through runtime's AccessClient)."""

    async def answer(request: AccessCheck) -> AccessDecision:
        token_grants = {
            (g.type, g.id): g.accessRole
            for g in request.tokenGrants
            if g.organizationId == request.organizationId
        }
        decision = await access.effective_access(
            request.apiKey,
            request.organizationId,
            request.documentId,
            request.userId,
            token_grants,
        )
        return AccessDecision(decision.role, decision.access_type, decision.via)

    return await rpc.serve(bus.nc, RPC_ACCESS_CHECK, AccessCheck, answer)


async def serve_config_get(bus: Bus, config: KeySettingsService) -> Subscription:
    """Notify reads the settings of an API key it acts on (webhooks, advanced endpoints with
    their signing secrets, activity logs, notifications, mail)."""

    async def answer(request: ConfigGetRequest) -> ApiKeyConfig:
        return await config.current(request.apiKey)

    return await rpc.serve(bus.nc, RPC_CONFIG_GET, ConfigGetRequest, answer)


async def serve_documents_ensure(bus: Bus, pool: Pool) -> Subscription:
    """Other services make sure an organization and a document exist (creating them when the
    request's flags say so) before they attach data to them."""

    async def answer(request: EnsureDocument) -> EnsuredDocument:
        return await ensure_for_service(pool, request)

    return await rpc.serve(bus.nc, RPC_DOCUMENTS_ENSURE, EnsureDocument, answer)


async def serve_documents_in_folder(bus: Bus, pool: Pool) -> Subscription:
    """Other services (comments' get by `folderId`) ask which documents a folder holds."""

    async def answer(request: ListFolderDocuments) -> FolderDocuments:
        ids = await document_ids_in_folder(
            pool, request.apiKey, request.organizationId, request.folderId, request.limit
        )
        return FolderDocuments(ids)

    return await rpc.serve(bus.nc, RPC_DOCUMENTS_IN_FOLDER, ListFolderDocuments, answer)


async def serve_user_group_members(bus: Bus, groups: UserGroupService) -> Subscription:
    """Other services (comments, for a group tagged in a comment) ask whom user groups name."""

    async def answer(request: UserGroupMembersGet) -> UserGroupMembers:
        return await groups.members(request)

    return await rpc.serve(bus.nc, RPC_USER_GROUP_MEMBERS, UserGroupMembersGet, answer)


async def serve_user_contacts(bus: Bus, pool: Pool) -> Subscription:
    """Other services (notify, for notification mail) ask for users' names and addresses."""

    async def answer(request: UserContactsGet) -> UserContacts:
        found = await contacts(pool, request.apiKey, list(set(request.userIds)))
        return UserContacts(
            {u: GroupMember(userId=u, name=n or None, email=e or None) for u, n, e in found}
        )

    return await rpc.serve(bus.nc, RPC_USER_CONTACTS, UserContactsGet, answer)


async def serve_disable_state(bus: Bus, disable_state: DisableStateService) -> Subscription:
    """Other services ask whether an organization or a document is disabled before a write that
    touches it (through runtime's AccessClient, which caches the answer)."""

    async def answer(request: DisableStateQuery) -> DisableState:
        return await disable_state.state(request)

    return await rpc.serve(bus.nc, RPC_DISABLE_STATE, DisableStateQuery, answer)

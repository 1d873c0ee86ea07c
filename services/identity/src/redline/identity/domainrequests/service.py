"""Rules of domain requests.

A page that loads the browser SDK on a domain the API key does not allow may ask for it
(`domains/request`); the key's owner lists what is open (`requested/domains/get`) and accepts or
rejects each (`additional-url-request`). Accepting adds the domain to the key's allowed domains,
with the same normalisation and event as `domains/add`. Nobody is mailed: the owner looks.

- A domain already allowed cannot be requested (ALREADY_EXISTS). Asking again for the same
  domain and document while a request is open answers that request.
- At most MAX_OPEN requests are open per key; more are FAILED_PRECONDITION until some are
  decided.
- A decided request cannot be decided again (FAILED_PRECONDITION); an unknown id, or a
  `clientDocId` other than the request's, is NOT_FOUND.
"""

from __future__ import annotations

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import AlreadyExists, FailedPrecondition, NotFound
from redline.identity import tokens
from redline.identity.caller import require_key_caller
from redline.identity.domainrequests import models, storage
from redline.identity.key_settings import storage as config_storage
from redline.identity.key_settings.domains import normalise_domains
from redline.identity.key_settings.service import add_allowed_domains
from redline.pg import Pool

MAX_OPEN = 1000


class DomainRequestService:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def request(
        self, caller: ApiKeyPrincipal, request: models.RequestDomain
    ) -> models.DomainRequest:
        require_key_caller(caller)
        (domain,) = normalise_domains([request.domain], "data.domain")
        org_id = request.organizationId or ""
        doc_id = request.clientDocumentId or ""
        async with self._pool.acquire() as conn, conn.transaction():
            await config_storage.lock_config(conn, caller.api_key)
            if domain in await config_storage.allowed_domains(conn, caller.api_key):
                raise AlreadyExists(f"{domain} is already an allowed domain.")
            found = await storage.open_request(conn, caller.api_key, domain, org_id, doc_id)
            if found is not None:
                return found
            if await storage.count_open(conn, caller.api_key) >= MAX_OPEN:
                raise FailedPrecondition(
                    f"An API key holds at most {MAX_OPEN} open domain requests."
                )
            return await storage.insert_request(
                conn, caller.api_key, tokens.new_id(), domain, org_id, doc_id
            )

    async def open_requests(self, caller: ApiKeyPrincipal) -> list[models.DomainRequest]:
        require_key_caller(caller)
        return await storage.open_requests(self._pool, caller.api_key)

    async def decide(
        self, caller: ApiKeyPrincipal, request: models.DecideDomainRequest
    ) -> models.DomainRequest:
        require_key_caller(caller)
        async with self._pool.acquire() as conn, conn.transaction():
            found = await storage.lock_request(conn, caller.api_key, request.id)
            if found is None or (
                request.clientDocId is not None and request.clientDocId != found.clientDocumentId
            ):
                raise NotFound("Domain request not found.")
            if found.status != "pending":
                raise FailedPrecondition(f"The domain request was already {found.status}.")
            if request.action == "accept":
                await add_allowed_domains(conn, caller, [found.domain])
            status = "accepted" if request.action == "accept" else "rejected"
            return await storage.decide_request(conn, caller.api_key, request.id, status)

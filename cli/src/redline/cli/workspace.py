"""`redline workspace create --email …`: create a workspace from the command line.

Talks to the database directly (the operator's privilege), runs the same service code as
`/v2/workspace/create`, and prints the same JSON body the endpoint returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from redline.cli.local import LocalInfrastructure
from redline.cli.lock import DataDirInUse, DataDirLock
from redline.envelope import codec
from redline.envelope.errors import ApiError
from redline.identity.app import ENDPOINTS, MIGRATIONS, make_service
from redline.identity.settings import IdentitySettings
from redline.identity.workspace.models import CreateWorkspace
from redline.pg import create_pool, migrate


async def create_workspace(settings: IdentitySettings, request: CreateWorkspace) -> bytes:
    assert settings.database_url
    pool = await create_pool(settings.database_url, max_size=2)
    try:
        async with pool.acquire() as conn:
            await migrate(conn, "identity", MIGRATIONS)
        service = make_service(
            pool, settings.secret_key_bytes(), on_revoked=lambda _key: None, settings=settings
        )
        workspace = await service.create_workspace(request)
    finally:
        await pool.close()
    message = next(e.message for e in ENDPOINTS if e.path == "/v2/workspace/create")
    return codec.success_body(workspace, message)


def validated_request(email: str, name: str | None) -> CreateWorkspace:
    """The request the endpoint would decode: the same bounds and email check, the same error.

    Building the Struct directly would skip them (msgspec validates on decode, not on
    construction), so the arguments go through the endpoint's own decoder.
    """
    data: dict[str, str] = {"ownerEmail": email}
    if name is not None:
        data["workspaceName"] = name
    return codec.decode_request(codec.encode({"data": data}), CreateWorkspace)


def main_create(email: str, name: str | None) -> int:
    from redline.runtime.settings import load_settings

    try:
        request = validated_request(email, name)
    except ApiError as exc:
        sys.stderr.write(f"redline: {exc.message}\n")
        sys.stdout.buffer.write(codec.error_body(exc) + b"\n")
        return 1
    environ = dict(os.environ)
    environ.setdefault("REDLINE_NATS_URL", "unused")  # creating a workspace needs no NATS
    data_dir = Path(environ.get("REDLINE_DATA_DIR", ".redline")).resolve()
    try:
        with _servers(data_dir, environ) as infra:
            settings = load_settings(IdentitySettings, environ, **infra.overrides)
            body = asyncio.run(create_workspace(settings, request))
    except ApiError as exc:
        sys.stdout.buffer.write(codec.error_body(exc) + b"\n")
        return 1
    except Exception as exc:  # settings or database trouble: say what, without a traceback
        sys.stderr.write(f"redline: {exc}\n")
        return 2
    sys.stdout.buffer.write(body + b"\n")
    return 0


@contextlib.contextmanager
def _servers(data_dir: Path, environ: dict[str, str]) -> Iterator[LocalInfrastructure]:
    """The data dir's servers: those of the `redline up` holding it, or else ones started for
    this command, the dir held meanwhile so that no runner takes them for leftovers."""
    try:
        lock = DataDirLock.acquire(data_dir)
    except DataDirInUse:
        yield LocalInfrastructure.join(data_dir, environ)
        return
    try:
        infra = LocalInfrastructure.start(data_dir, environ, with_nats=False)
        try:
            yield infra
        finally:
            infra.stop()
    finally:
        lock.release()

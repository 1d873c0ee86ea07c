"""Idempotent JetStream set-up: the EVENTS stream every service publishes to."""

from __future__ import annotations

from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig
from nats.js.errors import BadRequestError, NotFoundError

from redline.proto.subjects import STREAM, STREAM_SUBJECTS

# Publishes carry Nats-Msg-Id = event id; within this window a re-publish is dropped by the server.
DEDUPE_WINDOW_S = 300.0
MAX_AGE_S = 7 * 24 * 3600.0

# JetStream's error code for "stream name already in use with a different configuration".
_STREAM_NAME_IN_USE = 10058


def events_stream_config(replicas: int = 1) -> StreamConfig:
    """The EVENTS stream; `replicas` copies of it on a NATS cluster (3 in production, so that a
    lost node loses no event not yet consumed)."""
    return StreamConfig(
        name=STREAM,
        subjects=list(STREAM_SUBJECTS),
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        discard=DiscardPolicy.OLD,
        max_age=MAX_AGE_S,
        duplicate_window=DEDUPE_WINDOW_S,
        num_replicas=replicas,
    )


async def ensure_events_stream(js: JetStreamContext, replicas: int = 1) -> None:
    """Create the EVENTS stream, or bring an existing one to the current configuration.

    Safe to call from every replica at once: whichever loses the race to create it updates it.
    """
    config = events_stream_config(replicas)
    try:
        await js.update_stream(config)
    except NotFoundError:
        try:
            await js.add_stream(config)
        except BadRequestError as exc:
            if exc.err_code != _STREAM_NAME_IN_USE:
                raise
            await js.update_stream(config)

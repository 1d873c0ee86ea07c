"""Events of personal data erasure."""

from __future__ import annotations

from redline.proto.events.base import Event

# personal data erasure -------------------------------------------------------------------------
# Identity records a job and asks every participating service to erase (or anonymise) what it
# holds about some users of one API key; each service reports once it did, on
# `evt.<service>.personal_data.erased`, so the subject names the sender. Identity asks again,
# with the services that have not reported, when a job stays open too long.


class PersonalDataErasureRequested(
    Event, tag="identity.personal_data.erasure_requested", frozen=True
):
    jobId: str
    apiKey: str
    userIds: list[str]
    # Only these organizations' data; None: every organization of the API key.
    organizationIds: list[str] | None
    # The services asked this time (those that have not reported yet).
    participants: list[str]


class PersonalDataErased(Event, tag="personal_data.erased", frozen=True):
    service: str
    jobId: str
    apiKey: str
    erasedRecords: int = 0

    @property
    def subject(self) -> str:
        return f"evt.{self.service}.personal_data.erased"

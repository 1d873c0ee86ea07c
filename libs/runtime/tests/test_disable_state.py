"""The read-only rule of disabled organizations and documents."""

from __future__ import annotations

import pytest

from redline.envelope.errors import FailedPrecondition
from redline.proto.rpc import DisableState
from redline.runtime.disable_state import refuse_if_disabled


def test_nothing_disabled_lets_the_write_through() -> None:
    refuse_if_disabled(DisableState(organizationDisabled=False), "acme", "d1")
    refuse_if_disabled(DisableState(organizationDisabled=False), "acme")


def test_a_disabled_document_is_refused_naming_it() -> None:
    with pytest.raises(FailedPrecondition) as refused:
        refuse_if_disabled(DisableState(False, documentDisabled=True), "acme", "d1")

    assert refused.value.details == {
        "reason": "document-disabled",
        "organizationId": "acme",
        "documentId": "d1",
    }
    assert "d1" in refused.value.message


def test_a_disabled_organization_is_named_before_its_document() -> None:
    with pytest.raises(FailedPrecondition) as refused:
        refuse_if_disabled(DisableState(True, documentDisabled=True), "acme", "d1")

    assert refused.value.details == {"reason": "organization-disabled", "organizationId": "acme"}

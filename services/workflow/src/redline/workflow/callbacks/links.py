"""Callback links of steps that wait for the far side: an async webhook's receiver or an agent
runner posts the outcome to the link, with the link's token in `x-<brand>-callback-token`.

A token is an HMAC of the execution and step ids under a key derived from the server secret:
nothing is stored, any replica can check it, and it opens one step only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import quote

from redline.envelope.constant_time import same_secret
from redline.workflow.engine.nodes.outcome import Callback

CALLBACK_PATH = "/v2/workflow/callbacks/{execution_id}/{step_id}"


class CallbackLinks:
    def __init__(self, key: bytes, public_url: str, brand: str) -> None:
        self._key = key
        self._base = public_url.rstrip("/")
        self._header = f"x-{brand}-callback-token"

    def link(self, execution_id: str, step_id: str) -> Callback:
        path = CALLBACK_PATH.format(
            execution_id=quote(execution_id, safe=""), step_id=quote(step_id, safe="")
        )
        return Callback(
            url=self._base + path,
            token=self.token(execution_id, step_id),
            tokenHeader=self._header,
        )

    def token(self, execution_id: str, step_id: str) -> str:
        mac = hmac.new(self._key, f"{execution_id}\n{step_id}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")

    def verify(self, execution_id: str, step_id: str, presented: str) -> bool:
        return same_secret(presented, self.token(execution_id, step_id))

"""The idempotency key a triggered dispatch carries: one per source event (an inbound delivery's
id, a schedule's slot), so a redelivery or a second replica finds the execution the first made
(the execution table's unique index on the key decides, not a read).

The key is `trig:<triggerId>:<definitionId>:<id>`. The hosted product documents
`trig:<triggerId>:<id>`; the definition id is added because keys are unique per API key while a
trigger id is unique only within its definition, and two definitions of one key both naming a
trigger `nightly` (or both receiving one provider delivery) must each start their own run.

Keys must match the dispatch pattern (letters, digits, `:_-.`, at most 200 characters). Parts
that do not fit are hashed, deterministically, so a redelivery still finds the same key. Each
form has its own count of colons, so no key of one form can equal a key of another:
- `trig:<triggerId>:<definitionId>:<id>`: three or more (the id may hold colons; the others not);
- `trig:<triggerId>:<definitionId>.<sha256>`: exactly two, when only the id does not fit;
- `trig:<sha256>`: exactly one, when the trigger id does not fit either.
"""

from __future__ import annotations

import hashlib
import re

MAX_KEY = 200
_ID_CHARS = re.compile(r"[A-Za-z0-9_\-.]+\Z")
_KEY_CHARS = re.compile(r"[A-Za-z0-9:_\-.]+\Z")


def trigger_key(trigger_id: str, definition_id: str, source_id: str) -> str:
    readable = f"trig:{trigger_id}:{definition_id}"
    parts_fit = bool(_ID_CHARS.match(trigger_id) and _ID_CHARS.match(definition_id))
    full = f"{readable}:{source_id}"
    if parts_fit and _KEY_CHARS.match(source_id) and len(full) <= MAX_KEY:
        return full
    digest = hashlib.sha256(
        "\x00".join((trigger_id, definition_id, source_id)).encode(errors="surrogateescape")
    ).hexdigest()
    hashed = f"{readable}.{digest}"
    if parts_fit and len(hashed) <= MAX_KEY:
        return hashed
    return f"trig:{digest}"

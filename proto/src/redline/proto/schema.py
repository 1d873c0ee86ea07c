"""Export the JSON Schema of every event to `proto/schemas/events.json`.

`python -m redline.proto.schema` writes it; `--check` exits non-zero if the committed file differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec

from redline.proto.events import AnyEvent

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "schemas" / "events.json"


def render() -> str:
    return json.dumps(msgspec.json.schema(AnyEvent), indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = SCHEMA_PATH.read_text() if SCHEMA_PATH.exists() else ""
        if current != text:
            print(f"{SCHEMA_PATH} is out of date: run `make schemas`", file=sys.stderr)
            return 1
        return 0
    SCHEMA_PATH.write_text(text)
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

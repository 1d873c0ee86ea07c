"""The repository the checks read: its root, the workspace's members and the services."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

Json = dict[str, Any]


def workspace_members() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    members: list[str] = []
    for pattern in config["tool"]["uv"]["workspace"]["members"]:
        for path in sorted(ROOT.glob(pattern)):
            if (path / "pyproject.toml").exists():
                members.append(path.relative_to(ROOT).as_posix())
    return members


def services() -> list[str]:
    return sorted(path.parent.name for path in (ROOT / "services").glob("*/pyproject.toml"))

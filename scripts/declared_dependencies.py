"""Check that every workspace member declares what its sources import, and imports what it
declares.

A module imported under a member's `src/` must come from the standard library, from the member
itself, or from a distribution in the member's `[project] dependencies`: a package that is there
only because another member pulls it in disappears the day that member stops needing it.
Members share the `redline.` namespace, so `redline.<name>` is the member `redline-<name>`; any
other module is traced to its distribution through the installed packages' metadata. An import
inside a `try` that catches ImportError is optional and not checked.

Exceptions live in the root `pyproject.toml`, `[tool.redline.dependencies]`: `unimported` for a
dependency used without an import (a binary, a pytest plugin), `undeclared` for a known gap. An
exception that no longer applies is reported too, so the list cannot outlive its reasons.

Run with the workspace's environment: `python scripts/declared_dependencies.py`. Prints one line
per problem and exits 1 when there is one.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections import defaultdict
from collections.abc import Iterator, Mapping
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NAMESPACE = "redline"
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    if match is None:
        raise ValueError(f"not a requirement: {requirement!r}")
    return canonical(match.group())


def _catches_import_error(node: ast.Try) -> bool:
    for handler in node.handlers:
        caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(isinstance(name, ast.Name) and name.id in _IMPORT_ERRORS for name in caught):
            return True
    return False


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) of every absolute import in `path` that is not optional."""
    tree = ast.parse(path.read_text(), str(path))
    optional = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Try) and _catches_import_error(node)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def providers(module: str, installed: Mapping[str, list[str]]) -> set[str]:
    """The distributions that may provide `module`; empty for the standard library."""
    top, _, rest = module.partition(".")
    if top in sys.stdlib_module_names or top == "__future__":
        return set()
    if top == NAMESPACE:
        return {canonical(f"{NAMESPACE}-{rest.partition('.')[0]}")}
    # A module no installed distribution provides is looked for under its own name.
    return {canonical(name) for name in installed.get(top, [top])}


class Member:
    """A workspace member: what it declares, and where its sources import what from."""

    def __init__(self, directory: Path, installed: Mapping[str, list[str]]) -> None:
        project = tomllib.loads((directory / "pyproject.toml").read_text())["project"]
        self.where = directory.relative_to(ROOT)
        self.name = canonical(project["name"])
        self.declared = {requirement_name(r) for r in project.get("dependencies", [])}
        # The distributions that may provide an imported module → where it is imported.
        self.imported: dict[frozenset[str], list[str]] = defaultdict(list)
        for path in sorted((directory / "src").rglob("*.py")):
            for line, module in imports(path):
                candidates = providers(module, installed)
                if candidates and self.name not in candidates:
                    self.imported[frozenset(candidates)].append(f"{path.relative_to(ROOT)}:{line}")

    def problems(self, unimported: set[str], undeclared: set[str]) -> list[str]:
        missing = {
            " or ".join(sorted(candidates)): places
            for candidates, places in self.imported.items()
            if not candidates & self.declared
        }
        unused = self.declared.difference(*self.imported)
        found = [
            f"{self.where}: imports {name} without declaring it ({places[0]}"
            + (f" and {len(places) - 1} more)" if len(places) > 1 else ")")
            for name, places in sorted(missing.items())
            if name not in undeclared
        ]
        found += [
            f"{self.where}: declares {name} but src/ never imports it"
            for name in sorted(unused - unimported)
        ]
        found += [
            f"{self.where}: {name} is listed as undeclared in the root pyproject.toml, and is not"
            for name in sorted(undeclared - missing.keys())
        ]
        found += [
            f"{self.where}: {name} is listed as unimported in the root pyproject.toml, and is not"
            for name in sorted(unimported - unused)
        ]
        return found


def main() -> int:
    root: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())
    exceptions = root["tool"].get("redline", {}).get("dependencies", {})
    installed = packages_distributions()
    found: list[str] = []
    for pattern in root["tool"]["uv"]["workspace"]["members"]:
        for manifest in sorted(ROOT.glob(f"{pattern}/pyproject.toml")):
            member = Member(manifest.parent, installed)
            found += member.problems(
                {canonical(n) for n in exceptions.get("unimported", {}).get(member.name, [])},
                {canonical(n) for n in exceptions.get("undeclared", {}).get(member.name, [])},
            )
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

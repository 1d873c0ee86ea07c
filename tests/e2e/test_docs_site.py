"""The README's links and the documentation site's navigation lead somewhere, and the API area
pages list exactly the endpoints of the endpoint table. (`mkdocs build --strict`, in `make check`,
checks the links between the site's pages.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
NAV_PAGE = re.compile(r"^\s*- (?:[^:\n]+: )?(\S+\.md)$", re.MULTILINE)
TABLE_ROW = re.compile(r"^\| `.*$", re.MULTILINE)


def heading_anchors(page: Path) -> set[str]:
    """The anchors MkDocs gives a page's headings (its default slugs)."""
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", page.read_text(), re.MULTILINE):
        slug = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
        anchors.add(re.sub(r"[\s-]+", "-", slug))
    return anchors


def relative_links(page: Path) -> list[str]:
    text = re.sub(r"^```.*?^```$", "", page.read_text(), flags=re.MULTILINE | re.DOTALL)
    return [
        target
        for target in LINK.findall(text)
        if not re.match(r"[a-z]+:", target) and not target.startswith("#")
    ]


def test_the_readme_has_relative_links() -> None:
    assert len(relative_links(ROOT / "README.md")) >= 10


@pytest.mark.parametrize("target", relative_links(ROOT / "README.md"))
def test_a_readme_link_leads_to_a_file_and_its_heading(target: str) -> None:
    path, _, anchor = target.partition("#")
    file = ROOT / path

    assert file.is_file(), target
    if anchor:
        assert anchor in heading_anchors(file), target


def nav_pages() -> list[str]:
    return NAV_PAGE.findall((ROOT / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1])


def test_the_site_navigation_names_every_page_once() -> None:
    pages = nav_pages()
    on_disk = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))

    assert sorted(pages) == on_disk
    assert len(pages) == len(set(pages))


def test_the_api_pages_list_the_endpoint_table_between_them() -> None:
    table = TABLE_ROW.findall((DOCS / "endpoints.md").read_text())
    listed = [
        row
        for page in sorted((DOCS / "api").glob("*.md"))
        for row in TABLE_ROW.findall(page.read_text())
    ]

    assert sorted(listed) == sorted(table)

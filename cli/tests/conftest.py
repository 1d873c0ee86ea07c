from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A data dir for local servers, outside pytest's `tmp_path`.

    Under root, PostgreSQL runs as a user of its own, which must reach its data; pytest makes its
    temporary directories private to the user running the tests again whenever another test
    session starts, and prunes old ones while their servers may still run.
    """
    parent = Path(tempfile.mkdtemp(prefix="redline-test-cli-"))
    yield parent / "data"
    shutil.rmtree(parent, ignore_errors=True)

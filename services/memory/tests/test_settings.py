"""Memory's settings: the bounds on ingest work are read from the environment and refuse 0."""

from __future__ import annotations

import pytest

from redline.memory.settings import MemorySettings
from redline.runtime.settings import SettingsError, load_settings


def test_the_ingest_bounds_are_read_from_the_environment() -> None:
    settings = load_settings(
        MemorySettings,
        {"REDLINE_MAX_OUTSTANDING_INGESTS": "3", "REDLINE_MAX_CHUNKS_PER_FILE": "700"},
    )

    assert (settings.max_outstanding_ingests, settings.max_chunks_per_file) == (3, 700)


@pytest.mark.parametrize("name", ["REDLINE_MAX_OUTSTANDING_INGESTS", "REDLINE_MAX_CHUNKS_PER_FILE"])
def test_an_ingest_bound_of_zero_is_refused_naming_its_variable(name: str) -> None:
    with pytest.raises(SettingsError, match=name):
        load_settings(MemorySettings, {name: "0"})

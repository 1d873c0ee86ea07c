import io
import zipfile

import pytest

from redline.memory.knowledge.files import XLSX, FileRejected, Limits, extract
from redline.memory.knowledge.files.archive import check_archive
from services.memory.tests.files_support import plans_xlsx, with_declared_size, with_member


def rejection(data: bytes, limits: Limits | None = None) -> FileRejected:
    with pytest.raises(FileRejected) as rejected:
        extract(data, XLSX, limits or Limits())
    return rejected.value


def test_a_member_declaring_300_mb_is_refused_before_inflating() -> None:
    bomb = with_declared_size(
        with_member(plans_xlsx(), "xl/media/image1.bin", bytes(4096)),
        "xl/media/image1.bin",
        300 << 20,
    )
    refused = rejection(bomb)
    assert refused.code == "archive-too-large"
    assert "inflates to" in refused.detail


def test_a_member_inflating_over_100_times_past_10_mib_is_refused() -> None:
    bomb = with_member(plans_xlsx(), "xl/media/zeros.bin", bytes(12 << 20))
    refused = rejection(bomb)
    assert refused.code == "archive-too-large"
    assert "xl/media/zeros.bin" in refused.detail


def test_the_total_is_measured_against_the_limit() -> None:
    assert rejection(plans_xlsx(), Limits(max_uncompressed_bytes=1000)).code == "archive-too-large"


def test_more_than_10000_members_are_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number in range(10_001):
            archive.writestr(f"xl/m{number}", b"")
    with zipfile.ZipFile(buffer) as archive, pytest.raises(FileRejected) as rejected:
        check_archive(archive, Limits())
    assert rejected.value.code == "archive-too-large"


def test_a_normal_workbook_passes() -> None:
    with zipfile.ZipFile(io.BytesIO(plans_xlsx())) as archive:
        check_archive(archive, Limits())

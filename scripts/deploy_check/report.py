"""The checks' results, printed as they come."""

from __future__ import annotations

import sys


class Report:
    """One line per check as it finishes, and the count at the end."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, problems: list[str], detail: str = "") -> None:
        if problems:
            self.failed += 1
            print(f"FAIL {name}")
            for problem in problems:
                print(f"     {problem}")
        else:
            self.passed += 1
            print(f"ok   {name}" + (f" ({detail})" if detail else ""))
        sys.stdout.flush()

    def close(self) -> int:
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0

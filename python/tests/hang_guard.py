"""Hang guards for the Python tests. Tests wait for what they expect (a process gone, a reply),
never for a while; these limits only turn a hang into a failure, so they are generous enough for a
machine ten times slower than a developer's. CARDGYM_TEST_TIME_SCALE multiplies them (as it does
for the TypeScript tests)."""

from __future__ import annotations

import os


def _scale() -> float:
    raw = os.environ.get("CARDGYM_TEST_TIME_SCALE", "")
    if raw == "":
        return 1.0
    value = float(raw)
    if not value > 0:
        raise ValueError(f"CARDGYM_TEST_TIME_SCALE must be a positive number, got {raw!r}")
    return value


TIME_SCALE = _scale()


def hang_guard(seconds: float = 120.0) -> float:
    """A hang guard of `seconds` (default 120), scaled by CARDGYM_TEST_TIME_SCALE."""
    return seconds * TIME_SCALE

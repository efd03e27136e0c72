"""Fixtures: one real cardgym server for the whole run (the package's embedded one, or CARDGYM_URL),
and a `game` parameter that covers every game the server serves (GET /v1/games), so a game added
to the server is tested without editing these files."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import List, Optional

import numpy as np
import pytest

import cardgym

_client: Optional[cardgym.Client] = None


def shared_client() -> cardgym.Client:
    """The suite's client, on a server of this test process's own: the machine-shared server (the
    default) would also serve any other process of this user, e.g. a second test run, and tests that
    count the server's sessions and steps would count theirs too."""
    global _client
    if _client is None:
        _client = cardgym.Client(shared_server=False)
    return _client


def served_games() -> List[str]:
    return [g["id"] for g in shared_client().games()]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "game" in metafunc.fixturenames:
        metafunc.parametrize("game", served_games())


_shared_dir: Optional[str] = None


def pytest_configure(config: pytest.Config) -> None:
    """Tests that start the machine-shared server (what cardgym.make and the examples do by default)
    use a folder of this run's own for it, removed at the end, instead of the user's
    (<temp>/cardgym-<uid>, which the package keeps across runs on purpose)."""
    global _shared_dir
    if "CARDGYM_SHARED_DIR" not in os.environ:
        _shared_dir = tempfile.mkdtemp(prefix="cgs-")  # short: socket paths must fit
        os.environ["CARDGYM_SHARED_DIR"] = _shared_dir


def pytest_unconfigure(config: pytest.Config) -> None:
    if _client is not None:
        _client.close()
    if _shared_dir is not None:
        shutil.rmtree(_shared_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def client() -> cardgym.Client:
    return shared_client()


@pytest.fixture(scope="session")
def game_info(client):
    return {g["id"]: g for g in client.games()}


def masked_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "no legal action in a live state"
    return int(rng.choice(legal))


def same_reply(a, b, where: str) -> None:
    """Equal replies: the same keys, types, dtypes, shapes and bytes, recursively (into tuples,
    lists and object arrays, e.g. a vector env's step and its ``final_obs``)."""
    assert type(a) is type(b), where
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            same_reply(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same_reply(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert b.dtype == object and a.shape == b.shape, where
        for i, (x, y) in enumerate(zip(a.flat, b.flat)):
            same_reply(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), where
    else:
        assert a == b, where

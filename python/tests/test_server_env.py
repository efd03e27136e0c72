"""The embedded server runs on the Node it names, with a clean environment: NODE_OPTIONS and the
other NODE_* variables of the trainer's shell must neither stop it nor switch it to another Node."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

import cardgym
from cardgym.errors import ServerStartError
from cardgym.server import NODE_ENGINES, EmbeddedServer, find_node, node_environment, node_supported

# Node refuses to start with either: an unknown flag fails every run, even `node --version` (so
# a working Node looked broken and the package fell back to another one); a missing preload fails
# every program.
HARMFUL_NODE_OPTIONS = ["--cardgym-not-a-flag", "--require /nonexistent/cardgym-harmful.js"]

SYSTEM_NODE = shutil.which("node")


def test_engines_agree_with_package_json() -> None:
    package = json.loads((Path(__file__).resolve().parents[2] / "package.json").read_text())
    assert package["engines"]["node"] == NODE_ENGINES
    assert [node_supported(v) for v in [(20, 19), (20, 18), (21, 7), (22, 12), (22, 13), (23, 1), (24, 0), (26, 2)]] == [
        True,
        False,
        False,
        False,
        True,
        False,
        True,
        True,
    ]


def test_node_environment_drops_node_variables_only() -> None:
    env = node_environment({"NODE_OPTIONS": "--inspect", "NODE_PATH": "/x", "node_debug": "y", "PATH": "/bin", "CARDGYM_TOKEN": "t"})
    assert env == {"PATH": "/bin", "CARDGYM_TOKEN": "t"}


@pytest.mark.skipif(SYSTEM_NODE is None, reason="needs a node on PATH")
@pytest.mark.parametrize("harmful", HARMFUL_NODE_OPTIONS)
def test_server_starts_on_the_system_node_with_harmful_node_options(
    harmful: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NODE_OPTIONS", harmful)
    monkeypatch.setenv("NODE_PATH", "/nonexistent")
    monkeypatch.delenv("CARDGYM_NODE", raising=False)
    # The system Node is still found: its version probe is not broken by NODE_OPTIONS.
    assert find_node() == SYSTEM_NODE
    with caplog.at_level(logging.INFO, logger="cardgym.server"):
        server = EmbeddedServer()
    try:
        assert server.node == SYSTEM_NODE
        assert server.node_version is not None and server.node_version.startswith("v")
        assert f"Node {server.node_version} ({SYSTEM_NODE})" in caplog.text
        client = cardgym.Client(url=server.url)
        try:
            assert client.health()["ok"] is True
        finally:
            client.close()
    finally:
        server.stop()


@pytest.mark.skipif(SYSTEM_NODE is None, reason="needs a node on PATH")
def test_a_failed_start_says_which_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CARDGYM_NODE", raising=False)
    with pytest.raises(ServerStartError, match=rf"Node v\d+\.\d+\.\d+ at {SYSTEM_NODE}") as failed:
        EmbeddedServer(extra_args=["--port", "not-a-port"])
    assert "not-a-port" in str(failed.value)

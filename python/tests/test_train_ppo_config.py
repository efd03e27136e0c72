"""examples/train_ppo.py's game config: the training envs play --config (the envs' defaults filled
in: dcg's mirror books) and the arena after training plays the same config unless --arena-config
says otherwise, so the log's win rates and the final arena's measure the same game. The envs and
the arena have different dcg defaults (mirror books against vanguard-bastion); a policy's win rate
against the same opponent differs by more than ten points between them (docs/agents.md)."""

from __future__ import annotations

import json
import shutil

import pytest
from torch_support import fresh_run, train_ppo_module

MIRROR = ["vanguard", "vanguard"]
ARENA_DEFAULT = ["vanguard", "bastion"]


def short_run(client, run: str, *extra: str) -> dict:
    train_ppo = train_ppo_module()
    _, run_dir = fresh_run(run)
    try:
        summary = train_ppo.main([
            "--total-steps", "100", "--seed", "2", "--num-envs", "2", "--num-steps", "32", "--opponents", "random",
            "--run-name", run, "--url", client.url, "--arena-games", "2", "--arena-agents", "random", *extra,
        ])
        arena_report = json.loads((run_dir / "final-arena" / "arena.json").read_text())
        return {"summary": summary, "arena_books": arena_report["config"]["books"]}
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def test_the_arena_after_training_plays_the_config_the_envs_trained_on(client):
    run = short_run(client, "pytest-ppo-config-default")
    assert run["arena_books"] == MIRROR
    assert run["summary"]["config"]["books"] == MIRROR
    assert run["summary"]["arena_config"] == run["summary"]["config"]


def test_config_sets_the_training_envs_and_the_arena_and_arena_config_overrides_the_arena(client):
    arena_books = short_run(client, "pytest-ppo-config-given", "--config", json.dumps({"books": ARENA_DEFAULT}))
    assert arena_books["summary"]["config"]["books"] == ARENA_DEFAULT
    assert arena_books["arena_books"] == ARENA_DEFAULT
    game_default = short_run(client, "pytest-ppo-config-arena", "--arena-config", "{}")
    assert game_default["summary"]["config"]["books"] == MIRROR
    assert game_default["arena_books"] == ARENA_DEFAULT


@pytest.mark.parametrize("value", ["[1, 2]", "{books", "3"])
def test_a_config_that_is_not_a_json_object_is_a_usage_error(value):
    train_ppo = train_ppo_module()
    given = train_ppo.parse_args(["--run-name", "never-made", "--config", '{"hp": 10}', "--arena-config", "{}"])
    assert (given.config, given.arena_config) == ({"hp": 10}, {})
    for flag in ("--config", "--arena-config"):
        with pytest.raises(SystemExit) as exited:
            train_ppo.parse_args(["--run-name", "never-made", flag, value])
        assert exited.value.code == 2

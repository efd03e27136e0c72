"""The one base every env type shares (cardgym.env.SessionEnv, EnvOptions): the same options,
the same masks, the same boards and the same close, whatever the framework the env is for."""

from __future__ import annotations

from typing import Any, Callable, Dict

import numpy as np
import pytest

import cardgym
import cardgym.pettingzoo
import cardgym.rllib
import cardgym.sb3
import cardgym.selfplay
from cardgym.env import SessionEnv

#: Each env type, made with the options every env takes (README: "Other options on every env").
MAKERS: Dict[str, Callable[..., Any]] = {
    "gymnasium": lambda **o: cardgym.CardgymEnv("sevens", **o),
    "vector": lambda **o: cardgym.CardgymVectorEnv("sevens", 2, **o),
    "sb3": lambda **o: cardgym.sb3.CardgymVecEnv("sevens", 2, **o),
    "selfplay": lambda **o: cardgym.selfplay.SelfPlayVectorEnv("sevens", 2, **o),
    "pettingzoo": lambda **o: cardgym.pettingzoo.CardgymAECEnv("sevens", **o),
    "rllib-multi": lambda **o: cardgym.rllib.RLlibMultiAgentEnv("sevens", **o),
}
BATCHED = {"vector", "sb3", "selfplay"}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_every_env_type_takes_the_common_options_and_shares_masks_boards_and_close(kind, client):
    env = MAKERS[kind](
        seed=3, client=client, max_decisions=50, illegal_action="raise", illegal_reward=-2.0, writable_obs=True, render_mode="ansi"
    )
    try:
        assert isinstance(env, SessionEnv)
        assert (env.options.max_decisions, env.options.illegal_action, env.options.illegal_reward) == (50, "raise", -2.0)
        assert env.writable_obs and env.render_mode == "ansi"
        env.reset(seed=3) if kind != "sb3" else env.reset()
        masks = env.action_masks() if kind != "pettingzoo" else env.action_mask()
        assert masks.dtype == bool and masks.any(axis=-1).all()
        boards = env.render()
        if kind in BATCHED:
            assert isinstance(boards, tuple) and len(boards) == 2 and all(isinstance(b, str) and b for b in boards)
        else:
            assert isinstance(boards, str) and boards
    finally:
        env.close()
    assert env.session is None


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_an_unknown_or_bad_option_is_refused_before_any_session_opens(kind, client):
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        MAKERS[kind](client=client, bogus=1)
    with pytest.raises(ValueError, match="illegal_action"):
        MAKERS[kind](client=client, illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        MAKERS[kind](client=client, render_mode="rgb_array")


def test_seat_options_belong_to_the_learner_envs_only(client):
    with pytest.raises(TypeError, match="'learner_seat'"):
        MAKERS["pettingzoo"](client=client, learner_seat="alternating")
    with pytest.raises(TypeError, match="'seat'"):
        MAKERS["selfplay"](client=client, seat=1)
    # The vector env's own options are not the SB3 VecEnv's, and the other way round.
    with pytest.raises(TypeError, match="'observation'"):
        MAKERS["vector"](client=client, observation="dict")
    with pytest.raises(TypeError, match="'obs_dtype'"):
        MAKERS["sb3"](client=client, obs_dtype="uint8")
    env = MAKERS["vector"](client=client, seed=1, seat=1, learner_seat="alternating", obs_dtype="uint8")
    try:
        obs, infos = env.reset()
        assert env.seat == 1 and obs["observation"].dtype == np.float32
        assert set(infos["learner_seat"].tolist()) <= {0, 1, 2, 3, 4}
    finally:
        env.close()


@pytest.mark.parametrize("kind", sorted(MAKERS) + ["pool"])
def test_a_closed_env_closes_again_quietly_and_refuses_reset_and_step_by_name(kind, client):
    """Use after close is a RuntimeError naming the closed env, for every env type: not an assert
    (gone under ``python -O``, leaving an AttributeError on None) nor a numpy error from the pool's
    empty list of sessions."""
    env = cardgym.make_pool("sevens", 2, seed=1, client=client) if kind == "pool" else MAKERS[kind](seed=1, client=client)
    env.reset()
    env.close()
    env.close()
    action: Any = {"player_0": 0} if kind == "rllib-multi" else 0 if kind in ("gymnasium", "pettingzoo") else np.zeros(2, dtype=np.int64)
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(action)

"""Ray RLlib multi-agent PPO (new API stack) on a cardgym game through
``cardgym.rllib.multi_agent_env_creator``: every seat is an agent ``player_<seat>``.

    python/.venv-integrations/bin/python python/examples/rllib_multiagent_ppo.py --game dcg --policies shared
    python/.venv-integrations/bin/python python/examples/rllib_multiagent_ppo.py --game sevens --policies two

``--policies shared``: one self-play policy (module ``shared``) plays every seat. ``--policies two``:
a multi-module spec with two modules, ``first`` for ``player_0`` and ``rest`` for every other seat,
chosen by the policy mapping function; both learn. Each module is RLlib's action-masking RLModule.

Before and after training, the module of seat 0 plays ``--eval-games`` games greedily at seat 0
against uniform random legal play at every other seat, on the same deals; the script prints both
mean returns. It exits 1 when no env step was sampled or no episode finished (an env runner that
errors is not restarted, so its error reaches this process), or when ``--min-gain`` is given and the
trained module's mean return does not beat the untrained one's by that much.

Needs torch and ray[rllib] (``bash scripts/integrations-env.sh``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Dict

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import cardgym.rllib


def first_or_rest(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping function of ``--policies two``: seat 0 plays ``first``, the others ``rest``."""
    return "first" if agent_id == "player_0" else "rest"


def greedy_action(module: RLModule, obs: Dict[str, np.ndarray]) -> int:
    batch = {"obs": {k: torch.as_tensor(v[None, :]) for k, v in obs.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)["action_dist_inputs"][0]
    return int(torch.argmax(logits).item())


def mean_return_vs_random(module: RLModule, game: str, games: int, seed: int) -> float:
    """Seat 0's mean return when ``module`` plays it greedily and every other seat plays uniformly
    at random among its legal actions; deals ``seed .. seed + games - 1``."""
    env = cardgym.rllib.multi_agent_env_creator({"game": game})
    rng = np.random.default_rng(seed)
    total = 0.0
    try:
        for g in range(games):
            obs, _ = env.reset(seed=seed + g)
            while True:
                (agent,) = obs
                mask = obs[agent]["action_mask"]
                action = greedy_action(module, obs[agent]) if agent == "player_0" else int(rng.choice(np.flatnonzero(mask)))
                obs, rewards, terms, truncs, _ = env.step({agent: action})
                total += rewards.get("player_0", 0.0)
                if terms["__all__"] or truncs["__all__"]:
                    break
    finally:
        env.close()
    return total / games


def count(metrics: Dict[str, Any], key: str) -> int:
    value = metrics.get(key)
    return 0 if value is None or value != value else int(value)  # None or NaN: nothing counted


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="dcg")
    ap.add_argument("--policies", choices=["shared", "two"], default="shared")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--env-runners", type=int, default=2)
    ap.add_argument("--batch", type=int, default=2000, help="train batch size (env steps) per iteration")
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--min-gain", type=float, default=None, help="exit 1 unless training raises seat 0's mean return vs random by this much")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    start = time.perf_counter()
    ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False, log_to_driver=True)
    register_env("cardgym-multi", cardgym.rllib.multi_agent_env_creator)
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [64, 64]})
    if args.policies == "shared":
        modules = {"shared": module}
        mapping = lambda agent_id, episode=None, **kw: "shared"  # noqa: E731
    else:
        modules = {"first": module, "rest": module}
        mapping = first_or_rest
    config = (
        PPOConfig()
        .environment("cardgym-multi", env_config={"game": args.game, "seed": args.seed})
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
        .multi_agent(policies=set(modules), policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(train_batch_size_per_learner=args.batch, minibatch_size=250, num_epochs=4, lr=1e-3)
        # A failing env runner stops the run with its error instead of being restarted quietly.
        .fault_tolerance(restart_failed_env_runners=False, ignore_env_runner_failures=False)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    setup = time.perf_counter() - start
    evaluated = "shared" if args.policies == "shared" else "first"
    steps = episodes = 0
    try:
        eval_start = time.perf_counter()
        before = mean_return_vs_random(algo.get_module(evaluated), args.game, args.eval_games, 10_000 + args.seed)
        train_start = time.perf_counter()
        for it in range(args.iterations):
            runners = algo.train().get("env_runners", {})
            # RLlib's lifetime counters, as its env runners report them: under load they can lag an
            # iteration behind (and an iteration's own count can be NaN when no runner reported).
            steps, episodes = count(runners, "num_env_steps_sampled_lifetime"), count(runners, "num_episodes_lifetime")
            print(f"iteration {it + 1}: {steps} env steps and {episodes} episodes so far", flush=True)
        train = time.perf_counter() - train_start
        after = mean_return_vs_random(algo.get_module(evaluated), args.game, args.eval_games, 10_000 + args.seed)
        evaluation = time.perf_counter() - train - eval_start
    finally:
        algo.stop()
        ray.shutdown()
    print(f"{args.game} ({args.policies}): {steps} env steps, {episodes} episodes over {args.iterations} iterations with {args.env_runners} env runners")
    print(f"seat 0 mean return vs random over {args.eval_games} games: {before:+.3f} untrained, {after:+.3f} trained")
    print(f"wall time: {setup:.1f} s setup, {train:.1f} s training, {evaluation:.1f} s evaluating")
    if steps == 0 or episodes == 0:
        print("FAIL: no env steps sampled or no episode finished", file=sys.stderr)
        return 1
    if args.min_gain is not None and after - before < args.min_gain:
        print(f"FAIL: training raised the mean return vs random by {after - before:+.3f}, less than {args.min_gain}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

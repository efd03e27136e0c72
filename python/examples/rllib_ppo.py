"""Ray RLlib PPO (new API stack) on a cardgym game through ``cardgym.rllib``, with 2 env runners
(sharing one embedded server, started by the first) and RLlib's action-masking RLModule.

    python/.venv-integrations/bin/python python/examples/rllib_ppo.py --game dcg --iterations 3

Needs torch and ray[rllib] (``bash scripts/integrations-env.sh``). Prints the mean episode return
per iteration; exits 1 if no env step was sampled or no episode finished. A failing env runner is
not restarted: its error (printed by Ray in this process) stops the run.
"""

from __future__ import annotations

import argparse
import sys

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import cardgym.rllib


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="dcg")
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--env-runners", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False, log_to_driver=True)
    register_env("cardgym", cardgym.rllib.env_creator)
    config = (
        PPOConfig()
        .environment("cardgym", env_config={"game": args.game, "seed": args.seed})
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [64, 64]}))
        .training(train_batch_size_per_learner=800, minibatch_size=200, num_epochs=2, lr=3e-4)
        .fault_tolerance(restart_failed_env_runners=False, ignore_env_runner_failures=False)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    episodes = steps = 0
    try:
        for it in range(args.iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            episodes += int(runners.get("num_episodes", 0))
            steps += int(runners.get("num_env_steps_sampled", 0))
            print(f"iteration {it + 1}: episode_return_mean {runners.get('episode_return_mean')}, episodes {runners.get('num_episodes')}")
    finally:
        algo.stop()
        ray.shutdown()
    print(f"{args.game}: {steps} env steps, {episodes} episodes over {args.iterations} iterations with {args.env_runners} env runners")
    if steps == 0 or episodes == 0:
        print("FAIL: no env steps sampled or no episode finished", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

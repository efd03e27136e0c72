"""Time to the first step: a fresh Python process that imports cardgym, makes a dcg env (which
starts its own embedded server) and steps it once; with --rllib, an RLlib multi-agent PPO run whose
4 env runners each make an env (so start a server) before the first training iteration.

    python/.venv/bin/python python/bench_startup.py --runs 5
    CARDGYM_REPO=/tmp/cardgym-old python/.venv/bin/python python/bench_startup.py --runs 5   # another checkout's server
    python/.venv-integrations/bin/python python/bench_startup.py --rllib --runs 2

Each run is a new process (``python -c``), so nothing is warm but the OS file cache. Prints one
line per run and the median, and the load average (other jobs on a 2-core machine skew wall
times: compare checkouts by alternating runs, as docs/benchmarks.md does).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

MAKE = """
import time
t0 = time.perf_counter()
import cardgym
env = cardgym.make("dcg", seed=0)
obs, _ = env.reset()
env.step(int(obs["action_mask"].nonzero()[0][0]))
print(time.perf_counter() - t0)
env.close()
"""

RLLIB = """
import time
t0 = time.perf_counter()
import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env
import cardgym.rllib
ray.init(num_cpus=5, include_dashboard=False, log_to_driver=False)
started = time.perf_counter()
register_env("cardgym-multi", cardgym.rllib.multi_agent_env_creator)
module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [64, 64]})
algo = (
    PPOConfig()
    .environment("cardgym-multi", env_config={"game": "dcg", "seed": 0})
    .env_runners(num_env_runners=4, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
    .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode=None, **kw: "shared")
    .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
    .training(train_batch_size_per_learner=400, minibatch_size=200, num_epochs=1)
    .build_algo()
)
built = time.perf_counter()
algo.train()
print(started - t0, built - started, time.perf_counter() - built)
algo.stop()
ray.shutdown()
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rllib", action="store_true", help="time an RLlib run with 4 env runners instead of make()")
    args = ap.parse_args()
    firsts = []
    for i in range(args.runs):
        out = subprocess.run([sys.executable, "-c", RLLIB if args.rllib else MAKE], capture_output=True, text=True, check=True).stdout.split()
        if args.rllib:
            init, build, first = (float(x) for x in out)
            print(f"run {i + 1}: imports and ray.init {init:.1f} s, algorithm built (4 env runners, each with its env) +{build:.1f} s, first iteration +{first:.1f} s")
        else:
            print(f"run {i + 1}: import + make + reset + first step {float(out[0]):.2f} s")
        firsts.append(sum(float(x) for x in out))
    print(f"median {statistics.median(firsts):.2f} s over {args.runs} runs; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Time to the first step: a fresh Python process that imports cardgym, makes a dcg env and steps
it once; with --rllib, an RLlib multi-agent PPO run whose 4 env runners each make an env before the
first training iteration.

    python/.venv/bin/python python/bench_startup.py --runs 5
    CARDGYM_REPO=/tmp/cardgym-old python/.venv/bin/python python/bench_startup.py --runs 5   # another checkout's server
    python/.venv/bin/python python/bench_startup.py --runs 5 --compare                       # own server vs shared one
    python/.venv-integrations/bin/python python/bench_startup.py --rllib --runs 2 --compare

Each run is a new process (``python -c``), so nothing is warm but the OS file cache. ``--compare``
alternates run by run between the ways a process gets its server: ``own`` (CARDGYM_SHARED_SERVER=0:
each process starts a server of its own), ``shared-first`` (the shared server, none running yet:
this process starts it) and ``shared-second`` (the shared server while another process holds it:
what every process after the first gets; with --rllib, each run starts with no server, so its
first env runner starts one and the others join). Prints one line per run, the medians, and the
load average (other jobs on a 2-core machine skew wall times: compare within one run).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

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


HOLDER = """
import sys
import cardgym
env = cardgym.make("dcg", seed=0)
env.reset()
print(env.client.server.pid, flush=True)
sys.stdin.readline()
env.close()
"""


def run_once(code: str, env: Optional[Dict[str, str]] = None) -> List[float]:
    return [float(x) for x in subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout.split()]


def describe(rllib: bool, out: List[float]) -> str:
    if rllib:
        init, build, first = out
        return f"imports and ray.init {init:.1f} s, algorithm built (4 env runners, each with its env) +{build:.1f} s, first iteration +{first:.1f} s"
    return f"import + make + reset + first step {out[0]:.2f} s"


def compare(args: argparse.Namespace) -> int:
    base = {k: v for k, v in os.environ.items() if k not in ("CARDGYM_URL", "CARDGYM_SHARED_SERVER", "CARDGYM_SHARED_DIR")}
    held = tempfile.mkdtemp(prefix="cgb-")  # the shared server a holder process keeps running
    holder = None
    modes = ["own", "shared"] if args.rllib else ["own", "shared-first", "shared-second"]
    if not args.rllib:
        holder = subprocess.Popen([sys.executable, "-c", HOLDER], env={**base, "CARDGYM_SHARED_DIR": held}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert holder.stdout is not None
        print(f"holder process {holder.pid} holds the shared server (pid {holder.stdout.readline().strip()})")
    totals: Dict[str, List[float]] = {m: [] for m in modes}
    try:
        for i in range(args.runs):
            for mode in modes:
                fresh = tempfile.mkdtemp(prefix="cgb-")  # no server running there
                env = {**base, "CARDGYM_SHARED_DIR": held if mode == "shared-second" else fresh}
                if mode == "own":
                    env["CARDGYM_SHARED_SERVER"] = "0"
                out = run_once(RLLIB if args.rllib else MAKE, env)
                started = len(list(Path(env["CARDGYM_SHARED_DIR"]).glob("*/*/pid")))
                shutil.rmtree(fresh, ignore_errors=True)
                servers = "" if mode == "own" else f" ({started} shared server{'s' if started != 1 else ''} started so far)"
                print(f"run {i + 1} {mode:>13}: {describe(args.rllib, out)}{servers}", flush=True)
                totals[mode].append(sum(out))
    finally:
        if holder is not None:
            holder.communicate("\n", timeout=60)
        shutil.rmtree(held, ignore_errors=True)
    own = statistics.median(totals["own"])
    for mode in modes:
        m = statistics.median(totals[mode])
        print(f"{mode:>13}: median {m:.2f} s over {args.runs} runs ({own / m:.2f}x of own)")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rllib", action="store_true", help="time an RLlib run with 4 env runners instead of make()")
    ap.add_argument("--compare", action="store_true", help="alternate a server of each process's own with the shared one")
    args = ap.parse_args()
    if args.compare:
        return compare(args)
    firsts = []
    for i in range(args.runs):
        out = run_once(RLLIB if args.rllib else MAKE)
        print(f"run {i + 1}: {describe(args.rllib, out)}")
        firsts.append(sum(out))
    print(f"median {statistics.median(firsts):.2f} s over {args.runs} runs; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Masked PPO on sevens (5 seats) against four ``random`` seats, then ONNX export and an arena run.

CleanRL-style single file (PyTorch, CPU), the sevens counterpart of train_ppo.py: the learner plays
through one cardgym vector env (one server session, all envs stepped in one request) whose four
other seats are the server's ``random`` agent; the learner's seat is drawn per episode, so it learns
every seat the arena seats it at.

Reward (``--reward``), given at the end of each episode:

  * ``pair`` (default): what the arena scores. The arena seats the agent and one ``random`` at two
    adjacent seats (the agent before or after it, half the games each) beside three ``random``
    fillers and counts a win when the agent ranks above its pair. Every other seat here is a
    ``random``, so the expected arena score of a game is the mean over the two neighbours:
    ``(sign(r_me - r_next) + sign(r_me - r_prev)) / 2``, in {-1, 0, 1}.
  * ``rank``: the game's own rank reward, ``1 - 2(k-1)/(N-1)`` for rank k.

``--kill-shaping c`` adds a potential-based term gamma*phi(s') - phi(s) with phi = -c * (own killed
cards) / 13 read from the observation (0 at the end, so it sums to -phi(s0) = 0 over an episode
and only moves credit earlier in time; Ng, Harada and Russell 1999): the standings rank killed
cards first.

The log (one JSON line per update, also in ``<out>.log.jsonl``) gives the sampled policy's
rolling score on the training games, over the last 2000 episodes: ``pair_win`` (the arena's
measure: the share of the two neighbours the learner ranked above; ``random`` scores 0.5) and
``mean_rank``. The final actor is
exported with ``cardgym.onnx.export`` (checked by the Node side's loader and contract check) and,
unless ``--arena-games 0``, measured by ``npm run arena`` against ``--arena-agents``.

    # ~60 min on 2 cores at nice 10, what docs/agents.md reports
    nice -n 10 python/.venv/bin/python python/examples/train_sevens_ppo.py --minutes 60 --seed 1 --run-name sevens-ppo-s1

``--minutes`` stops at a wall-clock budget (or ``--total-steps``, whichever comes first);
``--init run.pt`` resumes from a checkpoint (the run folder's ``last.pt``, written with every
snapshot).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Deque, Dict, List, Optional

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import torch
import torch.nn as nn
import train_ppo  # its agent's sampling and its layer initialisation (this folder is on sys.path when run)
from train_ppo import layer

import cardgym
import cardgym.onnx
from cardgym.server import find_repo

GAME = "sevens"


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--minutes", type=float, default=60.0, help="wall-clock budget of the training (0: none)")
    p.add_argument("--total-steps", type=int, default=50_000_000, help="learner decisions to train on at most")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--num-envs", type=int, default=128)
    p.add_argument("--seats", type=int, default=5)
    p.add_argument("--opponent", type=str, default="random", help="the agent spec of the other seats")
    p.add_argument("--reward", choices=("pair", "rank"), default="pair")
    p.add_argument("--kill-shaping", type=float, default=0.0, help="potential coefficient on the own killed cards (0: none)")
    p.add_argument("--out", type=str, default=None, help="final ONNX file (default <repo>/models/runs/<run>/final.onnx)")
    p.add_argument("--run-name", type=str, default=None)
    p.add_argument("--init", type=str, default=None, help="start from a checkpoint (.pt) of this script")
    p.add_argument("--url", type=str, default=None, help="cardgym server URL (default: the embedded server of this checkout)")
    # PPO
    p.add_argument("--num-steps", type=int, default=64, help="rollout length per env")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--target-kl", type=float, default=0.03)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--snapshot-every", type=int, default=25, help="updates between snap-NNN.onnx and last.pt in the run folder")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    # evaluation
    p.add_argument("--arena-games", type=int, default=400, help="arena games per pairing after training (0: no arena)")
    p.add_argument("--arena-agents", type=str, default="random")
    p.add_argument("--arena-seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.init is not None and not Path(args.init).is_file():
        p.error(f"--init {args.init}: no such file")
    return args


# ------------------------------------------------------------------------------------------ reward
def pair_score(returns: np.ndarray, seat: int) -> float:
    """The arena's expected score of ``seat`` against a neighbour drawn from the seat after and the
    seat before it (each half the time): the mean of ``sign(r_seat - r_neighbour)``."""
    n = len(returns)
    me = returns[seat]
    return 0.5 * (float(np.sign(me - returns[(seat + 1) % n])) + float(np.sign(me - returns[(seat - 1) % n])))


def rank_of(returns: np.ndarray, seat: int) -> int:
    """1-based rank of ``seat`` from the rank returns (higher return, better rank)."""
    return 1 + int(np.sum(returns > returns[seat]))


# ------------------------------------------------------------------------------------------- model
def mlp(i: int, hidden: int, o: int, out_std: float) -> nn.Sequential:
    return nn.Sequential(layer(i, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, o, out_std))


class Agent(train_ppo.Agent):
    """train_ppo.py's agent (its masked sampling, log-probabilities, entropy and value) with a plain
    MLP actor, exported (obs -> raw logits; the agent masks at the table), and a plain MLP critic."""

    def __init__(self, obs_size: int, action_size: int, hidden: int):
        nn.Module.__init__(self)
        self.actor = mlp(obs_size, hidden, action_size, 0.01)
        self.critic = mlp(obs_size, hidden, 1, 1.0)


# ------------------------------------------------------------------------------------------- arena
def run_arena(repo: Path, model: Path, args: argparse.Namespace, out_dir: Path) -> Dict[str, dict]:
    spec = f"onnx:path={model.resolve()}"
    cmd = ["npm", "run", "--silent", "arena", "--", "--game", GAME, "--agents", f"{args.arena_agents},{spec}",
           "--games", str(args.arena_games), "--seed", str(args.arena_seed), "--out", str(out_dir), "-q"]
    print("arena:", " ".join(cmd), flush=True)
    done = subprocess.run(cmd, cwd=str(repo), capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-4000:], file=sys.stderr)
        raise SystemExit(f"arena failed (exit {done.returncode})")
    report = json.loads((out_dir / "arena.json").read_text())
    rows = {m["opponent"]: m for m in report["matrix"] if m["agent"] == spec}
    for opp, m in rows.items():
        print(f"arena: policy vs {opp}: {m['wins']}-{m['draws']}-{m['losses']} ({100 * m['winRate']:.1f}%, Wilson low {100 * m['wilsonLow']:.1f}%)", flush=True)
    return {opp: {k: m[k] for k in ("games", "wins", "draws", "losses", "winRate", "wilsonLow")} for opp, m in rows.items()}


# -------------------------------------------------------------------------------------------- main
def main(argv: Optional[List[str]] = None) -> Dict[str, object]:
    args = parse_args(argv)
    t_start = time.time()
    deadline = t_start + 60 * args.minutes if args.minutes > 0 else float("inf")
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    repo = find_repo()
    run_name = args.run_name or f"sevens-ppo-s{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = repo / "models" / "runs" / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    out = (Path(args.out) if args.out else run_dir / "final.onnx").resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    log_file = open(out.with_suffix(".log.jsonl"), "w")

    client = cardgym.Client(args.url)
    spec = client.spec(GAME)
    obs_size, action_size = int(spec["observation"]["size"]), int(spec["action"]["size"])
    killed = next(f for f in spec["observation"]["layout"] if f["name"] == "killed")
    own_killed = int(killed["offset"])  # slot 0 of the per-seat block is the viewer

    agent = Agent(obs_size, action_size, args.hidden)
    if args.init:
        agent.load_state_dict(torch.load(args.init))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    N = args.num_envs
    env = cardgym.make_vec(GAME, num_envs=N, opponents=args.opponent, learner_seat="random", seed=args.seed, client=client, config={"seats": args.seats})
    o, _ = env.reset(seed=args.seed)
    cur_obs = np.array(o["observation"], dtype=np.float32)
    cur_mask = o["action_mask"].astype(bool)
    print(f"run {run_name}: {N} envs, sevens {args.seats} seats, learner at a random seat against {args.opponent}; reward {args.reward}, kill shaping {args.kill_shaping}", flush=True)

    T = args.num_steps
    b_obs = torch.zeros((T, N, obs_size))
    b_mask = torch.zeros((T, N, action_size), dtype=torch.bool)
    b_act = torch.zeros((T, N), dtype=torch.long)
    b_logp, b_val, b_rew, b_end, b_valid = (torch.zeros((T, N)) for _ in range(5))

    pair_hist: Deque[float] = collections.deque(maxlen=2000)
    rank_hist: Deque[int] = collections.deque(maxlen=2000)
    valid_now = np.ones(N, dtype=bool)
    global_step = update = episodes = 0
    log_row: Dict[str, object] = {}
    total_budget = args.total_steps

    while global_step < total_budget and time.time() < deadline:
        update += 1
        frac = max((time.time() - t_start) / (deadline - t_start) if args.minutes > 0 else 0.0, global_step / total_budget)
        optimizer.param_groups[0]["lr"] = args.lr * max(0.05, 1.0 - frac)
        t0 = time.time()
        for t in range(T):
            ot, mt = torch.from_numpy(cur_obs), torch.from_numpy(cur_mask)
            with torch.no_grad():
                action, logp, _, value = agent.act(ot, mt)
            b_obs[t], b_mask[t], b_act[t], b_logp[t], b_val[t] = ot, mt, action, logp, value
            b_valid[t] = torch.from_numpy(valid_now.astype(np.float32))
            o, r, te, tr, info = env.step(action.numpy())
            o_next = np.array(o["observation"], dtype=np.float32)
            done = (te | tr) & valid_now
            rew = np.zeros(N, dtype=np.float32)
            for i in np.flatnonzero(done):
                rets, seat = np.asarray(info["returns"][i], dtype=np.float64), int(info["learner_seat"][i])
                score = pair_score(rets, seat)
                rew[i] = score if args.reward == "pair" else r[i]
                pair_hist.append(score)
                rank_hist.append(rank_of(rets, seat))
                episodes += 1
            if args.kill_shaping:
                phi = -args.kill_shaping * cur_obs[:, own_killed]  # killed / 13
                phi_next = np.where(te | tr, 0.0, -args.kill_shaping * o_next[:, own_killed])
                rew += np.where(valid_now, args.gamma * phi_next - phi, 0.0).astype(np.float32)
            b_rew[t] = torch.from_numpy(rew)
            b_end[t] = torch.from_numpy(done.astype(np.float32))
            global_step += int(valid_now.sum())
            valid_now = ~done  # the row after an end is the autoreset step: its action is ignored
            cur_obs, cur_mask = o_next, o["action_mask"].astype(bool)
        rollout_secs = time.time() - t0

        with torch.no_grad():
            next_value = agent.value(torch.from_numpy(cur_obs))
            adv = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nv = next_value if t == T - 1 else b_val[t + 1]
                nonterm = 1.0 - b_end[t]
                delta = b_rew[t] + args.gamma * nv * nonterm - b_val[t]
                last = delta + args.gamma * args.gae_lambda * nonterm * last
                adv[t] = last
            ret = adv + b_val

        keep = b_valid.reshape(-1) > 0
        f_obs, f_mask = b_obs.reshape(-1, obs_size)[keep], b_mask.reshape(-1, action_size)[keep]
        f_act, f_logp = b_act.reshape(-1)[keep], b_logp.reshape(-1)[keep]
        f_adv, f_ret = adv.reshape(-1)[keep], ret.reshape(-1)[keep]
        n = f_obs.shape[0]
        f_adv = (f_adv - f_adv.mean()) / (f_adv.std() + 1e-8)
        t1 = time.time()
        kl_stop = False
        for _epoch in range(args.epochs):
            for idx in torch.randperm(n).chunk(args.minibatches):
                _, newlogp, ent, newv = agent.act(f_obs[idx], f_mask[idx], f_act[idx])
                ratio = (newlogp - f_logp[idx]).exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - (newlogp - f_logp[idx])).mean().item()
                a = f_adv[idx]
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((newv - f_ret[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * ent.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
            if args.target_kl and approx_kl > args.target_kl:
                kl_stop = True
                break
        learn_secs = time.time() - t1

        if update % args.snapshot_every == 0:
            cardgym.onnx.export(agent.actor, GAME, run_dir / f"snap-{update:04d}.onnx", spec=spec, check="none")
            torch.save(agent.state_dict(), run_dir / "last.pt")
        log_row = {
            "update": update,
            "step": global_step,
            "episodes": episodes,
            "secs": round(time.time() - t_start, 1),
            "sps": round(n / max(rollout_secs + learn_secs, 1e-9)),
            "pair_win": round(0.5 + 0.5 * float(np.mean(pair_hist)), 4) if pair_hist else None,
            "mean_rank": round(float(np.mean(rank_hist)), 3) if rank_hist else None,
            "pg_loss": round(pg_loss.item(), 4),
            "v_loss": round(v_loss.item(), 4),
            "entropy": round(ent.mean().item(), 3),
            "approx_kl": round(approx_kl, 4),
            "kl_stop": kl_stop,
        }
        print(json.dumps(log_row), flush=True)
        log_file.write(json.dumps(log_row) + "\n")
        log_file.flush()

    env.close()
    torch.save(agent.state_dict(), out.with_suffix(".pt"))
    report = cardgym.onnx.export(agent.actor, GAME, out, spec=spec, check="node")
    train_secs = time.time() - t_start
    print(f"exported {out} ({report['bytes']} bytes, max |torch - onnxruntime-node| = {report['max_abs_diff']:.2e}) after {train_secs:.0f} s", flush=True)
    client.close()
    summary: Dict[str, object] = {"out": str(out), "train_seconds": round(train_secs, 1), "steps": global_step, "episodes": episodes, "last_log": log_row}
    if args.arena_games > 0:
        summary["arena"] = run_arena(repo, out, args, out.parent / (out.stem + "-arena"))
    (out.parent / (out.stem + ".summary.json")).write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary), flush=True)
    return summary


if __name__ == "__main__":
    main()

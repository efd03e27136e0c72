"""The fast path against HTTP and against in-process reference environments, side by side.

    python python/bench_fastpath.py [--seconds 3] [--rounds 3] [--only single,aec,vec64,selfplay64]
                                    [--mini-racer] [--old DIR ...]

Every workload runs a masked random agent in this process; rounds interleave the rows, so they see
the same machine load, and the figures to compare are the ratios within one run.

- ``single``: one Gymnasium env of sevens (``cardgym.make``) over HTTP and over the fast path, each
  on a private embedded server of its own, with CPU time per env-step of this process (client)
  and of the server process (all its threads, from /proc): the "client + server" cost of a step;
  and in process (``client=cardgym.InProcessClient()``, the engine in this process, no server),
  whose CPU is this process's alone. The same loop for all three: a masked random pick, resets
  included.
- ``aec``: cardgym's PettingZoo AEC env of sevens (fast path, and in process: ``InProcessClient``,
  the engine in this process) against PettingZoo's classic
  ``leduc_holdem_v4`` and ``texas_holdem_v4`` (in process, RLCard underneath): decisions/s of the
  same ``agent_iter``/``last``/``step`` loop.
- ``vec64``: ``cardgym.make_vec("sevens", 64)`` env-steps/s, HTTP and fast path, against OpenSpiel's
  ``crazy_eights`` in process (5 players, chance nodes sampled): every decision observed with
  ``state.observation_tensor`` and ``legal_actions_mask`` (Python lists), every decision observed
  with OpenSpiel's fast observation API (``make_observation``/``set_from``, a numpy view of its
  buffer), a learner env-step (player 0 observed with the fast API, the others random: what a
  ``make_vec`` env-step does) and bare (legal actions and apply); openspiel_rows says more.
  Decisions per env-step are counted for every row (count_decisions), and per_decision prints the
  comparisons per env-step and per decision of the rows that do the same work.
- ``selfplay64``: ``cardgym.selfplay.vector_env("sevens", 64)`` (every seat is the learner, one
  decision per env-step), HTTP, fast path and in process (``client=cardgym.InProcessClient()``:
  the engine in this process, whose CPU is all there is), against the same OpenSpiel rows.
``--old DIR`` (repeatable): the fast-path rows of ``single``, ``vec64`` and ``selfplay64`` (and the
in-process rows of ``single`` and ``selfplay64``, where that checkout has them) also for another checkout (a ``git worktree``
of an older commit, with ``node_modules`` linked): its Python package is imported under another
name and starts its own server from that checkout, and its row runs interleaved with this one's,
so old and new are measured side by side in one run.
``--mini-racer``: what one call into V8 embedded in Python costs (mini-racer from PyPI), the price
of running the engine bundle in the Python process instead.

Run with ``OPENBLAS_NUM_THREADS=1`` on a small machine (numpy's matrix products otherwise spawn
threads that compete with the server). Needs ``open-spiel``, ``pettingzoo[classic]``,
``pythonmonkey`` (the in-process row) and ``mini-racer`` (its row) in the venv: ``pip install -e
'python[bench]'``; rows whose package is missing are skipped with a note.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

import cardgym

TICK = os.sysconf("SC_CLK_TCK")


def server_cpu(pid: Optional[int]) -> float:
    """CPU seconds (user + system, all threads) of a process so far."""
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Row:
    """One workload: ``run(seconds)`` returns (env-steps, wall seconds, client CPU s, server CPU s)."""

    def __init__(self, name: str, run: Callable[[float], Tuple[int, float, float, float]], close: Callable[[], None] = lambda: None):
        self.name = name
        self.run = run
        self.close = close
        self.rates: List[float] = []
        self.cpu_us: List[float] = []
        self.client_us: List[float] = []
        #: Decisions (all seats) per env-step, and the learner's decisions per env-step (an env
        #: that a step only resets has none): what a per-decision comparison divides by.
        self.decisions: Callable[[], float] = lambda: 1.0
        self.learner_decisions: Callable[[], float] = lambda: 1.0


def timed(loop: Callable[[], int], seconds: float, pid: Optional[int]) -> Tuple[int, float, float, float]:
    s0, c0, t0 = server_cpu(pid), time.process_time(), time.perf_counter()
    steps = 0
    while time.perf_counter() - t0 < seconds:
        steps += loop()
    return steps, time.perf_counter() - t0, time.process_time() - c0, server_cpu(pid) - s0


def private_client(fast: bool, package: Any = cardgym) -> Any:
    return package.Client(private_server=True, transport="unix", fast_path=fast)


def old_package(checkout: str, index: int) -> Tuple[Any, str]:
    """The cardgym package of another checkout, imported as ``cardgym_old<index>``, and a label
    naming its commit."""
    root = os.path.abspath(checkout)
    folder = os.path.join(root, "python", "cardgym")
    name = f"cardgym_old{index}"
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
    if spec is None or spec.loader is None:
        raise SystemExit(f"--old {checkout}: no python/cardgym package there")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    try:
        commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = os.path.basename(root)
    return module, commit


def pick(rng: random.Random, mask: np.ndarray) -> int:
    """A uniformly random legal action, at about 1 us (numpy's Generator.choice costs ~10 us, which
    would dwarf what is measured here)."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def single_row(fast: bool, package: Any = cardgym, label: str = "", inprocess: bool = False) -> Optional[Row]:
    """One Gymnasium env of sevens: over HTTP, the fast path, or in process (``InProcessClient``,
    no server: the CPU is this process's alone)."""
    if inprocess:
        try:
            client: Any = package.InProcessClient()
        except (ImportError, AttributeError) as e:  # no pythonmonkey, or a checkout without InProcessClient
            print(f"(skipped the in-process 1-env row: {e})")
            return None
    else:
        client = private_client(fast, package)
    env = package.make("sevens", seed=0, client=client)
    rng = random.Random(0)
    state = {"obs": env.reset()[0]}

    def burst() -> int:
        obs = state["obs"]
        for _ in range(100):
            obs, _, te, tr, _ = env.step(pick(rng, obs["action_mask"]))
            if te or tr:
                obs, _ = env.reset()
        state["obs"] = obs
        return 100

    for _ in range(20):  # warm-up: the server (or SpiderMonkey) JIT-compiles its step path in the first thousand steps
        burst()
    server = getattr(client, "server", None)
    return Row(
        f"1 env sevens, {'in process' if inprocess else 'fast path' if fast else 'HTTP'}{label}",
        lambda s: timed(burst, s, server.pid if server else None),
        lambda: (env.close(), client.close()),
    )


def masked_random(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    logits = rng.random(mask.shape)
    logits[mask == 0] = -1.0
    return logits.argmax(axis=1)


def vec_row(fast: bool, selfplay: bool, n: int = 64, package: Any = cardgym, label: str = "", inprocess: bool = False) -> Optional[Row]:
    """``make_vec`` or self-play env-steps of sevens over HTTP, the fast path or in process; None
    (with a note) when the in-process runtime or that checkout's support for it is missing."""
    if inprocess:
        try:
            client: Any = package.InProcessClient()
            importlib.import_module(f"{package.__name__}.selfplay")
            venv: Any = package.selfplay.vector_env("sevens", n, seed=0, client=client) if selfplay else package.make_vec("sevens", n, seed=0, client=client)
        except (ImportError, AttributeError, package.ServerError) as e:  # no pythonmonkey, no InProcessClient, no same-step in process
            print(f"(skipped the in-process {'self-play' if selfplay else 'vec'} {n} row{label}: {e})")
            return None
        return _vec_row(venv, client, selfplay, n, f"in process{label}", None)
    client = private_client(fast, package)
    if selfplay:
        importlib.import_module(f"{package.__name__}.selfplay")
    venv = package.selfplay.vector_env("sevens", n, seed=0, client=client) if selfplay else package.make_vec("sevens", n, seed=0, client=client)
    return _vec_row(venv, client, selfplay, n, f"{'fast path' if fast else 'HTTP'}{label}", client.server.pid if client.server else None)


def _vec_row(venv: Any, client: Any, selfplay: bool, n: int, how: str, pid: Optional[int]) -> Row:
    rng = np.random.default_rng(0)
    obs, decisions, learner = count_decisions(venv, selfplay, rng)
    state = {"obs": obs}

    def burst() -> int:
        obs = state["obs"]
        for _ in range(10):
            obs = venv.step(masked_random(rng, obs["action_mask"]))[0]
        state["obs"] = obs
        return 10 * n

    burst()
    kind = "self-play" if selfplay else "vec"
    row = Row(f"{kind} {n} sevens, {how}", lambda s: timed(burst, s, pid), lambda: (venv.close(), client.close()))
    row.decisions, row.learner_decisions = (lambda: decisions), (lambda: learner)
    return row


def count_decisions(venv: Any, selfplay: bool, rng: np.random.Generator, steps: int = 100) -> Tuple[Any, float, float]:
    """An untimed pass of the rows' loop that counts, from ``infos["episode_step"]`` (decisions of
    all seats in the current episode), the decisions an env-step makes: the learner's and, in
    ``make_vec``, the random seats' up to the learner's next turn. Returns the last observation,
    decisions per env-step and the learner's decisions per env-step (``make_vec``'s next-step
    autoreset spends one step per episode on the reset, where the learner makes none)."""
    obs, info = venv.reset()
    n = venv.num_envs
    prev = np.asarray(info["episode_step"]).astype(np.int64)
    prev_done = np.zeros(n, dtype=bool)
    total = learner = 0
    for _ in range(steps):
        obs, _, te, tr, info = venv.step(masked_random(rng, obs["action_mask"]))
        ep = np.asarray(info["episode_step"]).astype(np.int64)
        if selfplay:  # same-step autoreset: an ended game's row already shows the next game
            d = ep - prev
            if "final_envs" in info:
                ended = np.asarray(info["final_envs"])
                d[ended] = np.asarray(info["final_episode_step"]) - prev[ended] + ep[ended]
            learner += int(d.sum())  # every seat is the learner
        else:
            d = np.where(prev_done, ep, ep - prev)
            learner += n - int(prev_done.sum())
        total += int(d.sum())
        prev, prev_done = ep, te | tr
    return obs, total / (steps * n), learner / (steps * n)


def cardgym_aec_row() -> Row:
    client = private_client(True)
    env = cardgym.pettingzoo.env("sevens", seed=0, client=client)
    return Row("AEC sevens (cardgym, fast path)", aec_runner(env, client.server.pid if client.server else None), lambda: (env.close(), client.close()))


def inprocess_aec_row() -> Optional[Row]:
    try:
        client: Any = cardgym.InProcessClient()
    except ImportError as e:
        print(f"(skipped the in-process AEC row: {e})")
        return None
    env = cardgym.pettingzoo.env("sevens", seed=0, client=client)
    return Row("AEC sevens (cardgym, in process)", aec_runner(env, None), env.close)


def aec_runner(env: Any, pid: Optional[int]) -> Callable[[float], Tuple[int, float, float, float]]:
    rng = random.Random(0)
    env.reset(seed=0)

    def burst() -> int:
        steps = 0
        while steps < 100:
            agent = env.agent_selection
            obs, _, te, tr, _ = env.last()
            if te or tr:
                env.step(None)
            else:
                env.step(pick(rng, obs["action_mask"]))
            steps += 1
            if not env.agents:
                env.reset()
            del agent
        return steps

    burst()
    return lambda s: timed(burst, s, pid)


def pettingzoo_rows() -> List[Row]:
    try:
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4
    except ImportError as e:
        print(f"(skipped PettingZoo rows: {e})")
        return []
    rows = []
    for name, mod in (("leduc_holdem_v4", leduc_holdem_v4), ("texas_holdem_v4", texas_holdem_v4)):
        env = mod.env()
        rows.append(Row(f"AEC {name} (PettingZoo, in process)", aec_runner(env, None), env.close))
    return rows


def openspiel_rows() -> List[Row]:
    """crazy_eights in process (5 players, as sevens has 5 seats), chance nodes sampled uniformly,
    a new game when one ends:

    - ``obs+mask``: every decision hands its player ``state.observation_tensor(player)`` (a Python
      list, made a float32 array) and ``legal_actions_mask`` (likewise int8), then applies a random
      legal action: an RL step of self-play as the first rows of this bench measured it.
    - ``fast obs``: the same with OpenSpiel's fast observation API (``make_observation(game)``,
      ``set_from(state, player)`` filling a buffer in C++ that ``.tensor`` views as numpy, nothing
      copied) and the ``legal_actions(player)`` list picked from directly (no mask built): the
      cheapest RL step OpenSpiel offers from Python.
    - ``learner env-step, fast obs``: what ``make_vec``'s env-step is: player 0 is the learner,
      observed with the fast API as above, and the four other players are random (legal actions
      and apply only, nothing observed); a step is from one decision of player 0 to its next, and
      the decisions of all players are counted too (``Row.decisions``).
    - ``learner env-step, fast obs, C++ bots``: the same with the four random players played by
      OpenSpiel's C++ uniform random bots (``pyspiel.make_uniform_random_bot``, one call a
      decision) instead of a Python pick: whether driving the opponents from Python handicaps it.
    - ``bare``: legal actions and apply only, nothing observed: OpenSpiel's own speed.
    """
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError as e:
        print(f"(skipped OpenSpiel rows: {e})")
        return []
    game = pyspiel.load_game("crazy_eights")
    rows = []
    bots = [pyspiel.make_uniform_random_bot(p, 1) for p in range(game.num_players())]
    for kind in ("obs+mask", "fast obs", "learner env-step, fast obs", "learner env-step, fast obs, C++ bots", "bare"):
        rng = random.Random(0)
        observation = make_observation(game)
        state: Dict[str, Any] = {"s": game.new_initial_state(), "decisions": 0, "steps": 0}

        def burst(kind: str = kind, rng: random.Random = rng, state: Dict[str, Any] = state, observation: Any = observation) -> int:
            s = state["s"]
            steps = decisions = 0
            while steps < 200:
                if s.is_terminal():
                    s = game.new_initial_state()
                elif s.is_chance_node():
                    outcomes = s.chance_outcomes()
                    s.apply_action(outcomes[rng.randrange(len(outcomes))][0])  # uniform deals
                elif kind == "obs+mask":
                    player = s.current_player()
                    np.asarray(s.observation_tensor(player), dtype=np.float32)
                    s.apply_action(pick(rng, np.asarray(s.legal_actions_mask(player), dtype=np.int8)))
                    steps += 1
                elif kind == "fast obs" or (kind.startswith("learner env-step") and s.current_player() == 0):
                    player = s.current_player()
                    observation.set_from(s, player)  # observation.tensor, a numpy view, now holds it
                    legal = s.legal_actions(player)
                    s.apply_action(legal[rng.randrange(len(legal))])
                    steps += 1
                    decisions += 1
                elif kind == "learner env-step, fast obs, C++ bots":
                    s.apply_action(bots[s.current_player()].step(s))
                    decisions += 1
                else:
                    legal = s.legal_actions()
                    s.apply_action(legal[rng.randrange(len(legal))])
                    decisions += 1
                    if kind == "bare":
                        steps += 1
            state["s"] = s
            state["steps"] += steps
            state["decisions"] += decisions if kind != "obs+mask" else steps
            return steps

        burst()
        row = Row(f"crazy_eights (OpenSpiel, in process, {kind})", lambda sec, b=burst: timed(b, sec, None))
        row.decisions = lambda state=state: state["decisions"] / state["steps"]
        rows.append(row)
    # The fast API's tensor is observation_tensor()'s, value for value.
    s, deal = game.new_initial_state(), random.Random(1)
    while s.is_chance_node():
        outcomes = s.chance_outcomes()
        s.apply_action(outcomes[deal.randrange(len(outcomes))][0])
    observation = make_observation(game)
    observation.set_from(s, s.current_player())
    assert np.array_equal(observation.tensor, np.asarray(s.observation_tensor(s.current_player()), dtype=np.float32))
    return rows


class MLP:
    """A small policy network in numpy (451 -> 64 -> 64 -> A): the trainer-side work that the
    pool's send/recv lets overlap the server's stepping."""

    def __init__(self, obs: int, actions: int):
        g = np.random.default_rng(0)
        self.w = [g.standard_normal((obs, 64)).astype(np.float32) * 0.05, g.standard_normal((64, 64)).astype(np.float32) * 0.05, g.standard_normal((64, actions)).astype(np.float32) * 0.05]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        h = np.maximum(obs @ self.w[0], 0)
        h = np.maximum(h @ self.w[1], 0)
        logits = h @ self.w[2]
        logits[mask == 0] = -np.inf
        return logits.argmax(axis=1)


def policy_rows(n: int = 64) -> List[Row]:
    """make_vec, a lockstep pool and an asynchronous pool (half the envs per recv), each driven by
    the MLP policy: how much sharding and overlap give a trainer."""
    rows = []
    client = private_client(True)
    venv = cardgym.make_vec("sevens", n, seed=0, client=client)
    mlp = MLP(venv.single_observation_space["observation"].shape[0], venv.single_action_space.n)
    st: Dict[str, Any] = {"obs": venv.reset()[0]}

    def vec_burst() -> int:
        for _ in range(10):
            st["obs"] = venv.step(mlp.act(st["obs"]["observation"], st["obs"]["action_mask"]))[0]
        return 10 * n

    pid = client.server.pid if client.server else None
    rows.append(Row(f"vec {n} sevens + MLP policy, one session", lambda s: timed(vec_burst, s, pid), lambda: (venv.close(), client.close())))
    for batch in (n, n // 2):
        pclient = private_client(True)
        pool = cardgym.make_pool("sevens", n, seed=0, client=pclient, batch_size=batch)
        pool.reset()

        def pool_burst(pool: Any = pool, batch: int = batch) -> int:
            for _ in range(10 * n // batch):
                obs, _, _, _, info = pool.recv()
                pool.send(mlp.act(obs["observation"], obs["action_mask"]), info["env_id"])
            return 10 * n

        ppid = pclient.server.pid if pclient.server else None
        label = f"pool {n} sevens + MLP policy, {pool.num_envs // pool.shard_size} shards, " + ("lockstep" if batch == n else f"async batch {batch}")
        rows.append(Row(label, lambda s, b=pool_burst, p=ppid: timed(b, s, p), lambda p=pool, c=pclient: (p.close(), c.close())))
    return rows


def mini_racer_costs() -> None:
    try:
        from py_mini_racer import MiniRacer
    except ImportError as e:
        print(f"(skipped mini-racer: {e})")
        return
    ctx = MiniRacer()
    ctx.eval("var obs = new Float32Array(451); function step(a) { obs[0] = a; return a + 1; } function stepObs(a) { obs[0] = a; return Array.from(obs); }")
    step = ctx.eval("step")
    step_obs = ctx.eval("stepObs")
    for label, fn in (("call returning an int", lambda: step(1)), ("call returning a 451-float observation", lambda: step_obs(1))):
        n, t0, c0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < 1.0:
            for _ in range(100):
                fn()
            n += 100
        print(f"mini-racer {label}: {1e6 * (time.process_time() - c0) / n:.1f} CPU us per call ({n / (time.perf_counter() - t0):,.0f}/s)")


def per_decision(rows: List[Row], spiels: List[str]) -> None:
    """The vec and self-play rows against the OpenSpiel rows that do the same work, per env-step
    and per decision (all seats), from each row's decision counts (count_decisions for ours, the
    OpenSpiel loops' own): ``make_vec`` (a learner observed, random seats) against the learner
    env-step row; self-play (every decision observed) against the rows that observe every
    decision."""
    by = {row.name: row for row in rows}
    print("decisions (all seats) and learner decisions per env-step; decisions/s and CPU us per decision (medians):")
    for row in rows:
        if row.name.startswith(("vec 64", "self-play 64")) or row.name in spiels:
            d, ld = row.decisions(), row.learner_decisions()
            rate, cpu = float(np.median(row.rates)), float(np.median(row.cpu_us))
            print(f"  {row.name}: {d:.3f} and {ld:.3f} per env-step; {rate * d:,.0f} decisions/s; {cpu / d:.2f} CPU us per decision")
    spiel = "crazy_eights (OpenSpiel, in process, {})"
    pairs = [(f"vec 64 sevens, {t}", spiel.format(k)) for t in ("fast path", "HTTP") for k in ("learner env-step, fast obs", "learner env-step, fast obs, C++ bots")]
    pairs += [(f"self-play 64 sevens, {t}", spiel.format(k)) for t in ("in process", "fast path", "HTTP") for k in ("fast obs", "obs+mask")]
    print("ours / OpenSpiel's doing the same work: by env-steps/s and decisions/s (wall-clock medians), and how many times fewer CPU us per env-step and per decision:")
    for x, y in pairs:
        if x in by and y in by:
            a, b = by[x], by[y]
            ra, rb = float(np.median(a.rates)), float(np.median(b.rates))
            ca, cb = float(np.median(a.cpu_us)), float(np.median(b.cpu_us))
            da, db = a.decisions(), b.decisions()
            print(
                f"  {x} / {y}: env-steps {ra / rb:.2f}x by rate, {cb / ca:.2f}x by CPU; "
                f"decisions {ra * da / (rb * db):.2f}x by rate, {(cb / db) / (ca / da):.2f}x by CPU"
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", default="single,aec,vec64,selfplay64,pool")
    p.add_argument("--mini-racer", action="store_true")
    p.add_argument("--old", action="append", default=[], metavar="DIR", help="another checkout whose fast-path rows (1 env, vec 64, self-play 64, as --only asks) run beside this one's")
    a = p.parse_args()
    only = set(a.only.split(","))
    rows: List[Row] = []
    olds = [old_package(checkout, i) for i, checkout in enumerate(a.old)]
    if "single" in only:
        rows += [r for r in (single_row(False), single_row(True), single_row(False, inprocess=True)) if r]
        for package, commit in olds:
            rows += [r for r in (single_row(True, package, f" (old: {commit})"), single_row(False, package, f" (old: {commit})", inprocess=True)) if r]
    if "aec" in only:
        inprocess = inprocess_aec_row()
        rows += [cardgym_aec_row(), *([inprocess] if inprocess else []), *pettingzoo_rows()]
    if "vec64" in only or "selfplay64" in only:
        spiel = openspiel_rows()
        made: List[Optional[Row]] = []
        if "vec64" in only:
            made += [vec_row(False, False), vec_row(True, False)]
            made += [vec_row(True, False, package=package, label=f" (old: {commit})") for package, commit in olds]
        if "selfplay64" in only:
            made += [vec_row(False, True), vec_row(True, True)]
            made += [vec_row(True, True, package=package, label=f" (old: {commit})") for package, commit in olds]
            made += [vec_row(False, True, inprocess=True)]
            made += [vec_row(False, True, package=package, label=f" (old: {commit})", inprocess=True) for package, commit in olds]
        rows += [r for r in made if r is not None]
        rows += spiel
    if "pool" in only:
        rows += policy_rows()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.1f}, {a.rounds} rounds of {a.seconds} s")
    try:
        for r in range(a.rounds):
            for row in rows if r % 2 == 0 else reversed(rows):
                steps, wall, client_cpu, srv_cpu = row.run(a.seconds)
                row.rates.append(steps / wall)
                row.client_us.append(1e6 * client_cpu / steps)
                row.cpu_us.append(1e6 * (client_cpu + srv_cpu) / steps)
    finally:
        for row in rows:
            row.close()
    print(f"{'row':44} {'steps/s (median)':>17} {'rounds':>26} {'client us':>10} {'client+server us':>17}")
    for row in rows:
        med = float(np.median(row.rates))
        print(
            f"{row.name:44} {med:17,.0f} {', '.join(f'{x:,.0f}' for x in row.rates):>26} {np.median(row.client_us):10.1f} {np.median(row.cpu_us):17.1f}"
        )
    print("client + server CPU us per env-step, by round (in-process rows: this process alone):")
    for row in rows:
        if row.cpu_us != row.client_us or "in process" in row.name:
            print(f"  {row.name}: {', '.join(f'{x:.1f}' for x in row.cpu_us)}")
    by = {row.name: float(np.median(row.rates)) for row in rows}
    print("ratios (medians):")
    pairs = [
        ("1 env sevens, fast path", "1 env sevens, HTTP"),
        ("1 env sevens, in process", "1 env sevens, fast path"),
        ("1 env sevens, in process", "1 env sevens, HTTP"),
        *((row.name.split(" (old: ")[0], row.name) for row in rows if "(old: " in row.name),
        ("AEC sevens (cardgym, fast path)", "AEC leduc_holdem_v4 (PettingZoo, in process)"),
        ("AEC sevens (cardgym, fast path)", "AEC texas_holdem_v4 (PettingZoo, in process)"),
        ("AEC sevens (cardgym, in process)", "AEC leduc_holdem_v4 (PettingZoo, in process)"),
        ("AEC sevens (cardgym, in process)", "AEC texas_holdem_v4 (PettingZoo, in process)"),
        ("vec 64 sevens, fast path", "vec 64 sevens, HTTP"),
        ("self-play 64 sevens, fast path", "self-play 64 sevens, HTTP"),
        ("self-play 64 sevens, in process", "self-play 64 sevens, fast path"),
    ]
    spiels = [row.name for row in rows if row.name.startswith("crazy_eights")]
    for spiel in spiels:
        for ours in ("vec 64 sevens, fast path", "vec 64 sevens, HTTP", "self-play 64 sevens, in process", "self-play 64 sevens, fast path", "self-play 64 sevens, HTTP"):
            pairs.append((ours, spiel))
    policy = [row.name for row in rows if "MLP" in row.name]
    pairs += [(x, policy[0]) for x in policy[1:]]
    for x, y in pairs:
        if x in by and y in by:
            print(f"  {x} / {y}: {by[x] / by[y]:.2f}x")
    # CPU per env-step swings far less with the machine's load than wall-clock rates.
    cpu = {row.name: float(np.median(row.cpu_us)) for row in rows}
    print("speed by CPU per env-step (client + server), medians: how many times fewer CPU us the first row needs:")
    for x, y in pairs:
        if x in cpu and y in cpu:
            print(f"  {x} vs {y}: {cpu[y] / cpu[x]:.2f}x")
    if spiels:
        per_decision(rows, spiels)
    if a.mini_racer:
        mini_racer_costs()


if __name__ == "__main__":
    main()

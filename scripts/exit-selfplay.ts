/**
 * npm run exit:selfplay -- --model net.onnx --out dir [--games N] [--iters N] [--seed N]
 *                          [--explore N] [--noise X] [--value net|eval] [--search k=v,...]
 *                          [--concurrency N] [-q]
 *
 * Self-play for expert iteration (python/examples/train_exit.py drives it): both seats of dcg are
 * played by network-guided determinized MCTS (`mcts:policy=<model>`, agents/guided-mcts.ts). For
 * every decision with more than one legal choice it records the acting seat's observation (the
 * game's encoder on that seat's view, so nothing hidden leaks into training), the legal ids, the
 * root's visit counts over the action ids (the policy target) and, once the game is over, that
 * seat's return (the value target). The first --explore decisions of a game are sampled in
 * proportion to the visits (with root noise), later ones are the most visited. --search adds
 * further parameters of the guided search (e.g. `ptemp=2,cpuct=3`), checked like any agent spec.
 *
 * Files in --out, appended one finished game at a time (a run stopped half way keeps whole games):
 * obs.f32 (rows of obsSize float32), pi.f32 (rows of actionSize float32, visits normalised),
 * mask.u8 (rows of actionSize: 1 = legal), z.f32 (one float32 per row), and meta.json (sizes,
 * the spec's observation version and action-spec hash, rows, games, seconds) written at the end.
 */
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deriveSeed, Rng, unwrap, type AnyGame } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { GuidedMctsAgent } from "../agents/guided-mcts.ts";
import { createAgentReady } from "../agents/spec.ts";
import { adapters } from "../env/games/index.ts";
import { specOf } from "../env/spec.ts";
import { intArg, main, parseCli, printUsage, UsageError } from "./cli.ts";

const USAGE =
  "npm run exit:selfplay -- --model net.onnx --out dir [--game dcg] [--games N] [--iters N] [--seed N] [--explore N] [--noise X] [--value net|eval] [--search k=v,...] [--concurrency N] [-q]";

interface Row {
  readonly seat: number;
  readonly obs: Float32Array;
  readonly pi: Float32Array;
  readonly mask: Uint8Array;
}

main(async () => {
  const { values, positionals } = parseCli(USAGE, {
    game: { type: "string" },
    model: { type: "string" },
    out: { type: "string" },
    games: { type: "string" },
    iters: { type: "string" },
    seed: { type: "string" },
    explore: { type: "string" },
    noise: { type: "string" },
    value: { type: "string" },
    search: { type: "string" },
    concurrency: { type: "string" },
    quiet: { type: "boolean", short: "q" },
  });
  if (values.help) return printUsage(USAGE);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  if (!values.model || !values.out) throw new UsageError(`--model and --out are required\nusage: ${USAGE}`);
  const gameId = values.game ?? "dcg";
  const game = unwrap(registry.get(gameId)) as AnyGame;
  const adapter = adapters.get(gameId);
  if (!adapter) throw new UsageError(`no RL adapter for game "${gameId}"`);
  const spec = specOf(adapter);
  const games = intArg(values.games, "games", 20, 1, 1_000_000);
  const iters = intArg(values.iters, "iters", 100, 1, 100_000);
  const seed = intArg(values.seed, "seed", 1);
  const explore = intArg(values.explore, "explore", 30, 0, 100_000);
  const concurrency = intArg(values.concurrency, "concurrency", 8, 1, 256);
  const noise = values.noise === undefined ? 0.25 : Number(values.noise);
  if (!(noise >= 0 && noise <= 1)) throw new UsageError(`--noise must be a number between 0 and 1, got "${values.noise}"`);
  const value = values.value ?? "net";
  if (value !== "net" && value !== "eval") throw new UsageError(`--value must be net or eval, got "${value}"`);
  const search = values.search ?? "";
  if (!/^([a-zA-Z]+=[^,;=]+(,[a-zA-Z]+=[^,;=]+)*)?$/.test(search) || /(^|,)(policy|iters|noise|value)=/.test(search))
    throw new UsageError(`--search takes k=v,... parameters of the guided search other than policy, iters, noise and value, got "${search}"`);
  const config = unwrap(game.parseConfig({}));
  if ((config as { seats: number }).seats !== 2) throw new UsageError(`${gameId} must be a two-seat game for self-play`);

  const out = values.out;
  mkdirSync(out, { recursive: true });
  for (const f of ["obs.f32", "pi.f32", "mask.u8", "z.f32", "meta.json"]) if (existsSync(join(out, f))) rmSync(join(out, f));
  const obsSize = adapter.observation.size;
  const actionSize = adapter.actions.size;
  const agentSpec = `mcts:policy=${values.model},iters=${iters},noise=${noise},value=${value}${search ? `,${search}` : ""}`;
  const start = performance.now();
  let rows = 0;
  let done = 0;
  let wins0 = 0;
  let decisions = 0;

  async function playOne(index: number): Promise<void> {
    const dealSeed = deriveSeed(seed, `exit:${index}`);
    const agents: GuidedMctsAgent[] = [];
    for (const seat of [0, 1]) {
      const made = await createAgentReady(agentSpec, { seed: dealSeed, seat, game: gameId, adapter, actionSpecHash: spec.actionSpecHash });
      if (!made.ok) throw new Error(made.error.message);
      agents.push(made.value as GuidedMctsAgent);
    }
    const pick = Rng.seeded(deriveSeed(dealSeed, "exit:pick"));
    let state = game.setup(config, dealSeed);
    const record: Row[] = [];
    const limit = game.maxDecisions(config);
    for (let step = 0; ; step++) {
      const seat = game.actor(state);
      if (seat === "terminal") break;
      if (step >= limit) throw new Error(`${gameId} did not end within ${limit} decisions`);
      const legal = game.legal(state);
      const view = game.view(state, seat);
      let index = 0;
      if (legal.length > 1) {
        const agent = agents[seat]!;
        const best = await agent.decide({ game, seat, view, legal, step });
        const visits = agent.lastVisits;
        index = step < explore ? sampleByVisits(visits, pick) : best;
        const pi = new Float32Array(actionSize);
        const mask = new Uint8Array(actionSize);
        const total = visits.reduce((a, b) => a + b, 0) || 1;
        for (let i = 0; i < legal.length; i++) {
          const id = adapter!.actions.encode(view, legal[i]);
          pi[id]! += visits[i]! / total;
          mask[id] = 1;
        }
        const obs = new Float32Array(obsSize);
        adapter!.observation.encode(view, obs);
        record.push({ seat, obs, pi, mask });
      }
      state = game.applyTrusted(state, legal[index]);
      decisions++;
    }
    const returns = game.returns(state);
    if (returns[0]! > returns[1]!) wins0++;
    appendRows(out, record, returns);
    rows += record.length;
    done++;
    if (!values.quiet) {
      const s = (performance.now() - start) / 1000;
      process.stderr.write(`selfplay: ${done}/${games} games, ${rows} rows, ${decisions} decisions, ${s.toFixed(0)} s (${(done / s).toFixed(2)} games/s)\n`);
    }
  }

  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, games) }, async () => {
    while (next < games) await playOne(next++);
  });
  await Promise.all(lanes);
  const seconds = (performance.now() - start) / 1000;
  const meta = {
    game: gameId,
    obsSize,
    actionSize,
    obsVersion: adapter.observation.version,
    actionSpecHash: spec.actionSpecHash,
    rows,
    games,
    seat0Wins: wins0,
    decisions,
    iters,
    seconds,
    agent: agentSpec,
  };
  writeFileSync(join(out, "meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
  if (!values.quiet) console.log(JSON.stringify(meta));
});

/** An index drawn in proportion to the visit counts (uniform when there are none). */
function sampleByVisits(visits: readonly number[], rng: Rng): number {
  const total = visits.reduce((a, b) => a + b, 0);
  if (total <= 0) return rng.int(visits.length);
  let u = rng.nextFloat() * total;
  for (let i = 0; i < visits.length; i++) {
    u -= visits[i]!;
    if (u < 0) return i;
  }
  return visits.length - 1;
}

function appendRows(out: string, record: readonly Row[], returns: readonly number[]): void {
  if (record.length === 0) return;
  const cat = <T extends Float32Array | Uint8Array>(parts: T[], make: (n: number) => T): T => {
    const all = make(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) {
      all.set(p, o);
      o += p.length;
    }
    return all;
  };
  const bytes = (a: Float32Array | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  appendFileSync(
    join(out, "obs.f32"),
    bytes(
      cat(
        record.map((r) => r.obs),
        (n) => new Float32Array(n),
      ),
    ),
  );
  appendFileSync(
    join(out, "pi.f32"),
    bytes(
      cat(
        record.map((r) => r.pi),
        (n) => new Float32Array(n),
      ),
    ),
  );
  appendFileSync(
    join(out, "mask.u8"),
    bytes(
      cat(
        record.map((r) => r.mask),
        (n) => new Uint8Array(n),
      ),
    ),
  );
  appendFileSync(join(out, "z.f32"), bytes(Float32Array.from(record.map((r) => returns[r.seat]!))));
}

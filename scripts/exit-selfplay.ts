/**
 * npm run exit:selfplay -- --model net.onnx --out dir [--games N] [--iters N] [--seed N]
 *                          [--explore N] [--noise X] [--value net|eval] [--search k=v,...]
 *                          [--concurrency N] [--student spec [--opponent spec]] [-q]
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
 * With --student (DAgger: labels on the states the student itself reaches), seat `game % 2` of
 * each game is played by the student agent (e.g. `onnx:path=net.onnx`) and the other seat by
 * --opponent (default `mcts`); the guided search is only the teacher: at every student decision
 * with a choice it searches, and its visits become the row's policy target, but the student's own
 * choice is played. Rows come from the student's seat only and z is the student's return.
 * --explore does not apply; --noise defaults to 0 and --value to eval (the teacher is the guided
 * search at its own defaults, labelling without noise).
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
import type { Facilitatee } from "../agents/facilitatee.ts";
import { adapters } from "../env/games/index.ts";
import { specOf } from "../env/spec.ts";
import { intArg, main, parseCli, printUsage, UsageError } from "./cli.ts";

const USAGE =
  "npm run exit:selfplay -- --model net.onnx --out dir [--game dcg] [--games N] [--iters N] [--seed N] [--explore N] [--noise X] [--value net|eval] [--search k=v,...] [--concurrency N] [--student spec [--opponent spec]] [-q]";

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
    student: { type: "string" },
    opponent: { type: "string" },
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
  const student = values.student;
  if (student !== undefined && values.explore !== undefined) throw new UsageError(`--explore does not apply with --student (the student plays its own moves)`);
  if (student === undefined && values.opponent !== undefined) throw new UsageError(`--opponent needs --student`);
  const opponent = values.opponent ?? "mcts";
  const explore = intArg(values.explore, "explore", 30, 0, 100_000);
  const concurrency = intArg(values.concurrency, "concurrency", 8, 1, 256);
  const noise = values.noise === undefined ? (student === undefined ? 0.25 : 0) : Number(values.noise);
  if (!(noise >= 0 && noise <= 1)) throw new UsageError(`--noise must be a number between 0 and 1, got "${values.noise}"`);
  const value = values.value ?? (student === undefined ? "net" : "eval");
  if (value !== "net" && value !== "eval") throw new UsageError(`--value must be net or eval, got "${value}"`);
  const search = values.search ?? "";
  if (!/^([a-zA-Z]+=[^,;=]+(,[a-zA-Z]+=[^,;=]+)*)?$/.test(search) || /(^|,)(policy|iters|noise|value)=/.test(search))
    throw new UsageError(`--search takes k=v,... parameters of the guided search other than policy, iters, noise and value, got "${search}"`);
  const config = unwrap(game.parseConfig({}));
  if ((config as { seats: number }).seats !== 2) throw new UsageError(`${gameId} must be a two-seat game for self-play`);

  const agentSpec = `mcts:policy=${values.model},iters=${iters},noise=${noise},value=${value}${search ? `,${search}` : ""}`;
  const context = { game: gameId, adapter, actionSpecHash: spec.actionSpecHash };
  async function makeAgent(text: string, seed: number, seat: number, flag: string): Promise<Facilitatee> {
    const made = await createAgentReady(text, { ...context, seed, seat });
    if (!made.ok) throw new UsageError(`${flag}: ${made.error.message}`);
    return made.value;
  }
  // Checked before anything is written, so a misspelt --model, --student or --opponent fails at once.
  await makeAgent(agentSpec, seed, 0, "--model");
  if (student !== undefined) {
    await makeAgent(student, seed, 0, "--student");
    await makeAgent(opponent, seed, 1, "--opponent");
  }

  const out = values.out;
  mkdirSync(out, { recursive: true });
  for (const f of ["obs.f32", "pi.f32", "mask.u8", "z.f32", "meta.json"]) if (existsSync(join(out, f))) rmSync(join(out, f));
  const obsSize = adapter.observation.size;
  const actionSize = adapter.actions.size;
  const start = performance.now();
  let rows = 0;
  let done = 0;
  let wins0 = 0;
  let decisions = 0;
  let studentWins = 0;

  /** Who plays each seat of game `index`, and the guided search that labels that seat's decisions (none: no rows). */
  async function seatsOf(index: number, dealSeed: number): Promise<{ player: Facilitatee; teacher: GuidedMctsAgent | null }[]> {
    const seats: { player: Facilitatee; teacher: GuidedMctsAgent | null }[] = [];
    for (const seat of [0, 1]) {
      const guided = async () => (await makeAgent(agentSpec, dealSeed, seat, "--model")) as GuidedMctsAgent;
      if (student === undefined) {
        const teacher = await guided();
        seats.push({ player: teacher, teacher });
      } else if (seat === index % 2) seats.push({ player: await makeAgent(student, dealSeed, seat, "--student"), teacher: await guided() });
      else seats.push({ player: await makeAgent(opponent, dealSeed, seat, "--opponent"), teacher: null });
    }
    return seats;
  }

  async function playOne(index: number): Promise<void> {
    const dealSeed = deriveSeed(seed, `exit:${index}`);
    const seats = await seatsOf(index, dealSeed);
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
      let choice = 0;
      const { player, teacher } = seats[seat]!;
      if (legal.length > 1 && teacher === null) choice = await player.decide({ game, seat, view, legal, step });
      else if (legal.length > 1 && teacher !== null) {
        const best = await teacher.decide({ game, seat, view, legal, step });
        const visits = teacher.lastVisits;
        if (player !== teacher) choice = await player.decide({ game, seat, view, legal, step });
        else choice = step < explore ? sampleByVisits(visits, pick) : best;
        record.push(labelledRow(view, legal, visits, seat));
      }
      if (!Number.isInteger(choice) || choice < 0 || choice >= legal.length) throw new Error(`seat ${seat} chose ${choice} of ${legal.length} legal decisions`);
      state = game.applyTrusted(state, legal[choice]);
      decisions++;
    }
    const returns = game.returns(state);
    if (returns[0]! > returns[1]!) wins0++;
    if (student !== undefined && returns[index % 2]! > returns[1 - (index % 2)]!) studentWins++;
    appendRows(out, record, returns);
    rows += record.length;
    done++;
    if (!values.quiet) {
      const s = (performance.now() - start) / 1000;
      const won = student === undefined ? "" : `, student won ${studentWins}`;
      process.stderr.write(
        `selfplay: ${done}/${games} games${won}, ${rows} rows, ${decisions} decisions, ${s.toFixed(0)} s (${(s / Math.max(1, rows)).toFixed(3)} s per row)\n`,
      );
    }
  }

  /** A row: the view's encoding, the legal ids, and the visits normalised over the action ids. */
  function labelledRow(view: unknown, legal: readonly unknown[], visits: readonly number[], seat: number): Row {
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
    return { seat, obs, pi, mask };
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
    ...(student === undefined ? {} : { student, opponent, studentWins }),
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

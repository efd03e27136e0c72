import { deriveSeed, Rng, stateHash, type AnyGame } from "../engine/core/index.ts";
import type { GameAdapter } from "../env/codec.ts";
import { decisionPoint, writeMask } from "../env/decision-point.ts";
import { specOf } from "../env/spec.ts";

/**
 * Golden playthroughs: seeded random-legal games with, after every decision, the state hash and
 * everything a trainer sees: each seat's observation, the actor's mask and its legal action ids.
 * A rules change moves the state hashes; an observation-encoder or action-codec change moves the
 * RL hashes (what silently breaks a trained policy) while the state hashes stay.
 */
export interface GoldenPlaythrough {
  readonly config: unknown;
  readonly seed: number;
  readonly decisions: readonly unknown[];
  /** State hash of the initial state and after each decision (decisions.length + 1 entries). */
  readonly hashes: readonly string[];
  /** Per state: each seat's observation hash, space-separated, seat 0 first. */
  readonly obs: readonly string[];
  /** Per state: hash of the actor's legal-action mask (all zeros at the end). */
  readonly masks: readonly string[];
  /** Per state: hash of the actor's legal action ids, in the engine's legal order. */
  readonly ids: readonly string[];
}

/** What the RL hashes were recorded against: the game's encoder version and action-spec hash. */
export interface GoldenEncoder {
  readonly observation: string;
  readonly actionSpecHash: string;
}

export interface GoldenFile {
  readonly game: string;
  readonly version: string;
  readonly encoder: GoldenEncoder;
  readonly note: string;
  readonly playthroughs: readonly GoldenPlaythrough[];
}

/**
 * Configs each game runs its goldens and the conformance suite under, besides its defaults
 * (`{}`). A game missing here runs with `{}` only.
 */
export const variantConfigs: Record<string, readonly Record<string, unknown>[]> = {
  dcg: [
    { books: ["venom", "tempo"] },
    { books: ["tempo", "vanguard"] },
    { books: ["bastion", "venom"] },
    { books: ["vanguard", "venom"] },
    { books: ["tempo", "bastion"] },
  ],
  sevens: [{ seats: 3 }, { seats: 6, passLimit: 3, voluntaryPass: true }, { seats: 4, startPlayer: "diamond7", passLimit: 3 }],
  shephy: [{ mode: "challenge" }],
  blackpoker: [{ chanceAfterRequest: "requester" }, { drawRule: "sixth", bothLivesZero: "draw" }],
};

/** A 64-bit (two-lane) hash of raw bytes, as 16 hex digits: observations and masks by value. */
export function bytesHash(view: ArrayBufferView): string {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let h1 = 0x811c9dc5 ^ bytes.length;
  let h2 = 0x9747b28c;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    h1 = Math.imul(h1 ^ b, 0x01000193);
    h2 = Math.imul(h2 ^ b, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b);
  h2 = Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}

export function encoderOf(adapter: GameAdapter): GoldenEncoder {
  return { observation: adapter.observation.version, actionSpecHash: specOf(adapter).actionSpecHash };
}

/** The RL hashes of one state: every seat's observation, the actor's mask and legal ids. */
export function rlHashes(adapter: GameAdapter, state: unknown): { obs: string; mask: string; ids: string } {
  const game = adapter.game;
  const seats = game.config(state).seats as number;
  const out = new Float32Array(adapter.observation.size);
  const obs: string[] = [];
  for (let seat = 0; seat < seats; seat++) {
    // Garbage first: an encoder that skips a float would leak the previous step into a reused buffer.
    out.fill(Number.NaN);
    adapter.observation.encode(game.view(state, seat), out);
    obs.push(bytesHash(out));
  }
  const actor = game.actor(state);
  const mask = new Uint8Array(adapter.actions.size);
  let ids: Int32Array = new Int32Array(0);
  if (actor !== "terminal") {
    const point = decisionPoint(adapter, state, actor);
    writeMask(point, mask, 0);
    ids = Int32Array.from(point.ids);
  }
  return { obs: obs.join(" "), mask: bytesHash(mask), ids: bytesHash(ids) };
}

export function goldenPlaythrough(game: AnyGame, adapter: GameAdapter, config: unknown, seed: number): GoldenPlaythrough {
  const parsed = game.parseConfig(config);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const policy = Rng.seeded(deriveSeed(seed, "golden-policy"));
  let state = game.setup(parsed.value, seed);
  const decisions: unknown[] = [];
  const hashes: string[] = [];
  const obs: string[] = [];
  const masks: string[] = [];
  const ids: string[] = [];
  const record = () => {
    hashes.push(stateHash(state));
    const rl = rlHashes(adapter, state);
    obs.push(rl.obs);
    masks.push(rl.mask);
    ids.push(rl.ids);
  };
  record();
  while (game.actor(state) !== "terminal") {
    const legal = game.legal(state);
    const d = legal[policy.int(legal.length)];
    state = game.applyTrusted(state, d);
    decisions.push(d);
    record();
  }
  return { config: parsed.value, seed, decisions, hashes, obs, masks, ids };
}

/** The golden playthroughs of a game, as `npm run golden` writes them. */
export function goldenFile(adapter: GameAdapter): GoldenFile {
  const game = adapter.game;
  const configs = [{}, ...(variantConfigs[game.info.id] ?? [])];
  return {
    game: game.info.id,
    version: game.info.version,
    encoder: encoderOf(adapter),
    note: "Generated by `npm run golden`. A rules change that alters these must regenerate them in the same commit, on purpose; an observation or action-id change must also bump the encoder version.",
    playthroughs: configs.flatMap((config, i) => [1, 2, 3].map((k) => goldenPlaythrough(game, adapter, config, 1000 * i + k))),
  };
}

/**
 * Why `fresh` may not replace `old`: a state both files reach (same playthrough, same state hash)
 * whose observations changed while the encoder version did not, or whose mask or ids changed while
 * the action-spec hash did not. Such a change breaks trained policies silently, so it needs a new
 * version (which the ONNX model contract then checks) rather than a quiet regeneration.
 */
export function unversionedChanges(old: GoldenFile, fresh: GoldenFile): string[] {
  const problems: string[] = [];
  const sameObs = old.encoder?.observation === fresh.encoder.observation;
  const sameActions = old.encoder?.actionSpecHash === fresh.encoder.actionSpecHash;
  if (!sameObs && !sameActions) return problems;
  const byKey = new Map(fresh.playthroughs.map((p) => [keyOf(p), p]));
  for (const p of old.playthroughs) {
    const q = byKey.get(keyOf(p));
    if (!q || !p.obs) continue;
    const n = Math.min(p.hashes.length, q.hashes.length);
    for (let i = 0; i < n; i++) {
      if (p.hashes[i] !== q.hashes[i]) break; // the rules changed from here on: nothing to compare
      if (sameObs && p.obs[i] !== q.obs[i]) {
        problems.push(
          `${fresh.game} seed ${p.seed} step ${i}: the same state gives other observations, but the encoder is still "${fresh.encoder.observation}"`,
        );
        break;
      }
      if (sameActions && (p.masks[i] !== q.masks[i] || p.ids[i] !== q.ids[i])) {
        problems.push(
          `${fresh.game} seed ${p.seed} step ${i}: the same state gives other action ids, but the action spec is unchanged (${fresh.encoder.actionSpecHash})`,
        );
        break;
      }
    }
  }
  return problems;
}

function keyOf(p: GoldenPlaythrough): string {
  return `${p.seed}:${JSON.stringify(p.config)}`;
}

/**
 * Re-runs every playthrough of `file` with `adapter` and lists what differs: the rules version,
 * the encoder version or action-spec hash, and per playthrough the first step whose state, any
 * seat's observation, the mask or the legal ids hash differently (empty = identical).
 */
export function goldenDifferences(file: GoldenFile, adapter: GameAdapter): string[] {
  const game = adapter.game;
  const problems: string[] = [];
  if (file.version !== game.info.version) problems.push(`recorded for rules version ${file.version}, the game is at ${game.info.version}`);
  const now = encoderOf(adapter);
  if (file.encoder?.observation !== now.observation) {
    problems.push(`recorded for observation encoder "${file.encoder?.observation}", the game has "${now.observation}": regenerate with npm run golden`);
  }
  if (file.encoder?.actionSpecHash !== now.actionSpecHash) {
    problems.push(`recorded for action-spec hash ${file.encoder?.actionSpecHash}, the game has ${now.actionSpecHash}: regenerate with npm run golden`);
  }
  for (const p of file.playthroughs) problems.push(...playthroughDifferences(p, adapter));
  return problems;
}

export function playthroughDifferences(p: GoldenPlaythrough, adapter: GameAdapter): string[] {
  const game = adapter.game;
  const where = (i: number) => `seed ${p.seed} config ${JSON.stringify(p.config)} step ${i}`;
  const parsed = game.parseConfig(p.config);
  if (!parsed.ok) return [`seed ${p.seed}: config refused: ${parsed.error.message}`];
  let state = game.setup(parsed.value, p.seed);
  const problems: string[] = [];
  const seen = { state: false, obs: false, mask: false, ids: false };
  const differ = (kind: keyof typeof seen, i: number, what: string) => {
    if (seen[kind]) return;
    seen[kind] = true;
    problems.push(`${where(i)}: ${what}`);
  };
  for (let i = 0; i <= p.decisions.length; i++) {
    if (stateHash(state) !== p.hashes[i]) {
      differ("state", i, "the state hash differs (a rules change)");
      break; // what follows is another game: comparing it says nothing more
    }
    const rl = rlHashes(adapter, state);
    if (rl.obs !== p.obs?.[i]) {
      const a = rl.obs.split(" ");
      const b = (p.obs?.[i] ?? "").split(" ");
      const seats = a.flatMap((h, k) => (h === b[k] ? [] : [k]));
      differ("obs", i, `the observation of seat ${seats.join(", ")} differs (an encoder change)`);
    }
    if (rl.mask !== p.masks?.[i]) differ("mask", i, "the legal-action mask differs");
    if (rl.ids !== p.ids?.[i]) differ("ids", i, "the legal action ids differ");
    if (i === p.decisions.length) break;
    const next = game.apply(state, p.decisions[i]);
    if (!next.ok) {
      problems.push(`${where(i)}: decision refused: ${next.error.message}`);
      break;
    }
    state = next.state;
  }
  if (game.actor(state) !== "terminal" && problems.length === 0) problems.push(`seed ${p.seed}: the game does not end after the recorded decisions`);
  return problems;
}

import { fail, ok, type Result } from "./errors.ts";
import type { AnyGame } from "./game.ts";
import { stateHash } from "./hash.ts";
import type { GameRegistry } from "./registry.ts";

/** A game is its record: replaying it reproduces every state hash. */
export interface GameRecord {
  readonly game: string;
  readonly version: string;
  readonly config: unknown;
  readonly seed: number;
  readonly decisions: readonly unknown[];
  /** Hash after setup and after each decision (optional; checked when present). */
  readonly hashes?: readonly string[];
  readonly finalHash?: string;
}

export const RECORD_LIMITS = { maxDecisions: 1_000_000 } as const;

/** Structural validation of an untrusted record document. */
export function parseRecord(raw: unknown): Result<GameRecord> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return fail("invalid_record", "a record must be a JSON object with game, version, config, seed, decisions");
  }
  const r = raw as Record<string, unknown>;
  if (typeof r.game !== "string" || r.game.length === 0) return fail("invalid_record", "record.game must be a non-empty string", "game");
  if (typeof r.version !== "string") return fail("invalid_record", "record.version must be a string", "version");
  if (!Number.isSafeInteger(r.seed)) return fail("invalid_record", "record.seed must be a safe integer", "seed");
  if (!Array.isArray(r.decisions)) return fail("invalid_record", "record.decisions must be an array", "decisions");
  if (r.decisions.length > RECORD_LIMITS.maxDecisions) {
    return fail("invalid_record", `record has more than ${RECORD_LIMITS.maxDecisions} decisions`, "decisions");
  }
  if (r.hashes !== undefined && (!Array.isArray(r.hashes) || !r.hashes.every((h) => typeof h === "string"))) {
    return fail("invalid_record", "record.hashes must be an array of strings", "hashes");
  }
  if (r.finalHash !== undefined && typeof r.finalHash !== "string") {
    return fail("invalid_record", "record.finalHash must be a string", "finalHash");
  }
  return ok({
    game: r.game,
    version: r.version,
    config: r.config ?? {},
    seed: r.seed as number,
    decisions: r.decisions,
    ...(r.hashes !== undefined ? { hashes: r.hashes as string[] } : {}),
    ...(r.finalHash !== undefined ? { finalHash: r.finalHash as string } : {}),
  });
}

export interface Replayed {
  readonly state: unknown;
  /** hashes[0] after setup, hashes[i] after decision i-1. */
  readonly hashes: readonly string[];
  readonly finalHash: string;
}

/** Re-run a record from scratch. Any illegal decision or hash mismatch is an error naming the step. */
export function replay(registry: GameRegistry, record: GameRecord): Result<Replayed> {
  const found = registry.get(record.game);
  if (!found.ok) return found;
  const game: AnyGame = found.value;
  if (record.version !== game.info.version) {
    return fail("invalid_record", `record is for ${record.game} version ${record.version}, this engine has version ${game.info.version}`, "version");
  }
  const config = game.parseConfig(record.config);
  if (!config.ok) return fail("invalid_record", `record.config: ${config.error.message}`, config.error.path ? `config.${config.error.path}` : "config");
  let state = game.setup(config.value, record.seed);
  let finalHash = stateHash(state);
  const hashes = [finalHash];
  const check = (i: number): Result<null> => {
    const want = record.hashes?.[i];
    if (want !== undefined && want !== hashes[i]) {
      return fail("hash_mismatch", `state hash after step ${i} is ${hashes[i]}, the record says ${want}`, `hashes[${i}]`);
    }
    return ok(null);
  };
  const first = check(0);
  if (!first.ok) return first;
  for (let i = 0; i < record.decisions.length; i++) {
    const out = game.apply(state, record.decisions[i]);
    if (!out.ok) {
      return fail("invalid_record", `decisions[${i}] cannot be applied: ${out.error.message}`, `decisions[${i}]`);
    }
    state = out.state;
    finalHash = stateHash(state);
    hashes.push(finalHash);
    const c = check(i + 1);
    if (!c.ok) return c;
  }
  if (record.finalHash !== undefined && record.finalHash !== finalHash) {
    return fail("hash_mismatch", `final state hash is ${finalHash}, the record says ${record.finalHash}`, "finalHash");
  }
  return ok({ state, hashes, finalHash });
}

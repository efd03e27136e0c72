import { canonicalJson, hashString } from "../engine/core/index.ts";
import type { GameAdapter, ObservationField } from "./codec.ts";

/** Bumped when the shape of the spec document itself (not a game's layout) changes. */
export const SPEC_FORMAT = 1;

/**
 * What a trainer (and an ONNX model) needs to agree on with the server: sizes, dtypes and layout
 * versions. `actionSpecHash` fingerprints exactly the fields a policy depends on; an exported model
 * carries it in its metadata so a model trained against another layout is refused at load.
 */
export interface EnvSpec {
  readonly format: number;
  readonly game: string;
  /** Rules version: informational, not hashed (a rules fix does not invalidate a policy's inputs). */
  readonly gameVersion: string;
  readonly minSeats: number;
  readonly maxSeats: number;
  readonly defaultSeats: number;
  readonly observation: {
    readonly dtype: "float32";
    readonly size: number;
    readonly version: string;
    /** Fields with their declared low/high where the game bounds them (codec.ts). */
    readonly layout: readonly ObservationField[];
  };
  readonly action: {
    readonly dtype: "int32";
    readonly size: number;
    readonly layout: string;
  };
  readonly mask: { readonly dtype: "uint8" };
  readonly reward: { readonly dtype: "float32" };
  readonly actionSpecHash: string;
}

export function buildSpec(adapter: GameAdapter): EnvSpec {
  const { game, actions, observation } = adapter;
  const hashed = {
    format: SPEC_FORMAT,
    game: game.info.id,
    observation: {
      dtype: "float32",
      size: observation.size,
      version: observation.version,
      layout: observation.layout.map((f) => ({ name: f.name, offset: f.offset, length: f.length, description: f.description })),
    },
    action: { dtype: "int32", size: actions.size, layout: actions.layout },
    mask: { dtype: "uint8" },
  };
  return {
    format: SPEC_FORMAT,
    game: game.info.id,
    gameVersion: game.info.version,
    minSeats: game.info.minSeats,
    maxSeats: game.info.maxSeats,
    defaultSeats: game.info.defaultSeats,
    observation: {
      dtype: "float32",
      size: observation.size,
      version: observation.version,
      // low/high only where declared (absent = unbounded), so JSON and msgpack carry no infinities.
      layout: observation.layout.map((f) => ({
        name: f.name,
        offset: f.offset,
        length: f.length,
        description: f.description,
        ...(f.low === undefined ? {} : { low: f.low }),
        ...(f.high === undefined ? {} : { high: f.high }),
      })),
    },
    action: { dtype: "int32", size: actions.size, layout: actions.layout },
    mask: { dtype: "uint8" },
    reward: { dtype: "float32" },
    actionSpecHash: hashString(canonicalJson(hashed)),
  };
}

const cache = new WeakMap<GameAdapter, EnvSpec>();

/** The spec of an adapter, computed once (adapters are immutable module constants). */
export function specOf(adapter: GameAdapter): EnvSpec {
  let spec = cache.get(adapter);
  if (!spec) {
    spec = buildSpec(adapter);
    cache.set(adapter, spec);
  }
  return spec;
}

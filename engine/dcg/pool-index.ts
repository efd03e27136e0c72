import { ATTACHED_LIFETIME, ATTACHED_TRIGGER } from "./battle-index.ts";
import type { Pool } from "./pool.ts";
import { TRIGGER_KINDS } from "./trigger.ts";
import { defIn } from "./pool.ts";
import { fuseReach, type FusedReach } from "./fused.ts";

/**
 * Lookup tables derived from a compiled pool, for ability matching in resolve.ts: built once per
 * pool (pools are immutable) instead of re-filtering every card's abilities per trigger.
 */
/**
 * Everything resolve.ts asks about one trigger kind, in one record: a lookup by a string key that
 * varies is a slow (megamorphic) property read, so it is done once per trigger, not once per question.
 */
export interface KindIndex {
  /** The kind's position in TRIGGER_KINDS (per-kind arrays elsewhere are indexed by it). */
  readonly no: number;
  /** The pool's listens / lifetimes / answers for this kind (Pool). */
  readonly listens: boolean;
  readonly lifetimes: boolean;
  readonly answers: boolean;
  /** defAbilities[def]: the card's own TriggerAbilities that can match this kind, in card order. */
  readonly defAbilities: readonly (readonly number[])[];
  /** matches[ability] = 1 when that ability is a TriggerAbility that can match this kind. */
  readonly matches: Uint8Array;
}

export interface PoolIndex {
  /** kinds[no]: the KindIndex of the trigger kind numbered `no` (TRIGGER_NO). */
  readonly kinds: readonly KindIndex[];
  /** listens[no] = 1 when some ability could match the trigger kind numbered `no` (Pool.listens). */
  readonly listens: Uint8Array;
  /** aura[def] = 1 when the card has a NightmareAbility or an AreaAbility (refresh looks at it on the Field). */
  readonly aura: Uint8Array;
  /**
   * attachable[ability]: what carrying it attached makes a card for ability matching
   * (battle-index.ts): ATTACHED_TRIGGER for a TriggerAbility, ATTACHED_LIFETIME for a
   * ParameterAbility with a lifetime, else 0.
   */
  readonly attachable: Uint8Array;
  /** areaReach[ability]: an AreaAbility's reach as a fused collector (fused.ts), or null (evaluated phrase by phrase). */
  readonly areaReach: readonly (FusedReach | null)[];
}

const NO_ABILITIES: readonly number[] = [];

/** A pool's lookup tables (DcgCache.poolIndex keeps them, one per pool). */
export function buildPoolIndex(pool: Pool): PoolIndex {
  const aura = new Uint8Array(pool.cards.length);
  for (let i = 0; i < pool.cards.length; i++) {
    const def = defIn(pool, i);
    if (def.nightmare >= 0 || def.areaAbilities.length > 0) aura[i] = 1;
  }
  const attachable = new Uint8Array(pool.abilities.length);
  for (const ab of pool.abilities) {
    if (ab.type === "TriggerAbility") attachable[ab.id] = ATTACHED_TRIGGER;
    else if (ab.type === "ParameterAbility" && ab.lifetime.length > 0) attachable[ab.id] = ATTACHED_LIFETIME;
  }
  const areaReach = pool.abilities.map((ab) => (ab.type === "AreaAbility" ? fuseReach(ab.reach) : null));
  const kinds = buildKinds(pool);
  const listens = Uint8Array.from(kinds, (ki) => (ki.listens ? 1 : 0));
  return { kinds, listens, aura, attachable, areaReach };
}

function buildKinds(pool: Pool): KindIndex[] {
  return TRIGGER_KINDS.map((kind, no) => {
    const matches = new Uint8Array(pool.abilities.length);
    for (const ab of pool.abilities) {
      if (ab.type === "TriggerAbility" && (ab.kinds === null || ab.kinds.includes(kind))) matches[ab.id] = 1;
    }
    const defAbilities = pool.cards.map((def) => {
      const list = def.triggerAbilities.filter((id) => matches[id] === 1);
      return list.length === 0 ? NO_ABILITIES : list;
    });
    return { no, listens: pool.listens[kind], lifetimes: pool.lifetimes[kind], answers: pool.answers[kind], defAbilities, matches };
  });
}

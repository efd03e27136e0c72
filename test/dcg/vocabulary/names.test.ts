import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { abilityHandlers } from "../../../engine/dcg/ability.ts";
import * as calculators from "../../../engine/dcg/calculator.ts";
import { commandHandlers, COMMAND_TYPE, type CommandKind } from "../../../engine/dcg/command.ts";
import { CMD } from "../../../engine/dcg/resolve.ts";
import { COMPARATORS } from "../../../engine/dcg/comparator.ts";
import { effectHandlers } from "../../../engine/dcg/effect.ts";
import { headHandlers } from "../../../engine/dcg/heads.ts";
import { dcg } from "../../../engine/dcg/index.ts";
import { Rng } from "../../../engine/core/index.ts";
import type { Trace } from "../../../engine/dcg/draft.ts";
import { PARAMETERS } from "../../../engine/dcg/params.ts";
import { loadPool } from "../../../engine/dcg/pool.ts";
import { setupBattle } from "../../../engine/dcg/setup.ts";
import { pipeHandlers } from "../../../engine/dcg/pipes.ts";
import { STATE_KINDS } from "../../../engine/dcg/state.ts";
import { TRIGGER_KINDS } from "../../../engine/dcg/trigger.ts";

/**
 * The design's vocabulary is in code that runs: each name below is a key of one of the engine's
 * live registries (the handler tables the loader and the command runner dispatch on), not a word
 * in a comment, and some test under test/ names it in code. The list is the design names an
 * audit found missing or partial, plus every key of the registries that card data reaches (so a
 * name added to a registry later needs a test too).
 */
/**
 * Every name list a module exports: arrays of strings (CALCULATOR_MODES...) and tables of
 * functions, so a calculator kind added there later (numeric or boolean) is held to the same rule.
 */
function exportedNames(module: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const v of Object.values(module)) {
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string")) out.push(...(v as string[]));
    else if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.values(v).length > 0 && Object.values(v).every((x) => typeof x === "function"))
      out.push(...Object.keys(v));
  }
  return [...new Set(out)];
}

const registries = {
  command: Object.keys(commandHandlers),
  trigger: [...TRIGGER_KINDS] as string[],
  state: [...STATE_KINDS] as string[],
  ability: Object.keys(abilityHandlers),
  head: Object.keys(headHandlers),
  pipe: Object.keys(pipeHandlers),
  effect: Object.keys(effectHandlers),
  calculator: exportedNames(calculators),
  comparator: [...COMPARATORS] as string[],
  parameter: [...PARAMETERS] as string[],
  /** The Game contract's optional capabilities that dcg implements. */
  game: Object.keys(dcg).filter((k) => typeof (dcg as unknown as Record<string, unknown>)[k] === "function"),
} satisfies Record<string, readonly string[]>;
type Registry = keyof typeof registries;

/** The design's names the audit asked for, with where each must live (the engine's name for it). */
const REQUIRED: readonly { readonly design: string; readonly name: string; readonly in: Registry }[] = [
  { design: "FilterCardHp", name: "FilterCardHp", in: "pipe" },
  { design: "SummonFinishCommand", name: "SummonFinishCommand", in: "command" },
  { design: "EffectFinishCommand", name: "EffectFinishCommand", in: "command" },
  { design: "AbilityOblivionChangedTrigger", name: "AbilityOblivionChanged", in: "trigger" },
  { design: "StateChangedTrigger", name: "StateChanged", in: "trigger" },
  { design: "ConsumeFeint", name: "ConsumeFeint", in: "effect" },
  { design: "AttachAbility", name: "AttachAbility", in: "effect" },
  { design: "ParameterAbility", name: "ParameterAbility", in: "ability" },
  { design: "Parameter Attack", name: "Attack", in: "parameter" },
  { design: "Parameter MoveCost", name: "MoveCost", in: "parameter" },
  { design: "Parameter Cost", name: "Cost", in: "parameter" },
  { design: "Parameter Life", name: "Life", in: "parameter" },
  { design: "Parameter CanAttack (a flag)", name: "CanAttack", in: "parameter" },
  { design: "Parameter CanMove (a flag)", name: "CanMove", in: "parameter" },
  { design: "BooleanCalculator And", name: "And", in: "calculator" },
  { design: "BooleanCalculator Not", name: "Not", in: "calculator" },
  { design: "IsSuccess / WillSuccessIfSelect", name: "explain", in: "game" },
];

/** Card vocabulary registries: every key must be named by a test (card data reaches them all). */
const EVERY_KEY_TESTED: readonly Registry[] = ["ability", "head", "pipe", "effect", "calculator", "comparator", "parameter"];

const TEST_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SELF = fileURLToPath(import.meta.url);

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (/\.(ts|mts|py)$/.test(e.name) && p !== SELF) out.push(p);
  }
  return out;
}

/** Source without comments (block, line and Python), so a name only in a comment does not count. */
function code(text: string, path: string): string {
  if (path.endsWith(".py")) return text.replace(/#[^\n]*/g, "");
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/[^\n]*/g, "$1");
}

const sources = testFiles(TEST_ROOT).map((p) => ({ path: relative(TEST_ROOT, p), text: code(readFileSync(p, "utf8"), p) }));
const mentioning = (name: string) => sources.filter((s) => new RegExp(`\\b${name}\\b`).test(s.text)).map((s) => s.path);

describe("the design's names are live in the engine, each with a test", () => {
  for (const r of REQUIRED) {
    it(`${r.design}: ${r.in} ${r.name}`, () => {
      expect(registries[r.in], `${r.name} is not a ${r.in} of the engine`).toContain(r.name);
      expect(mentioning(r.name), `no test under test/ names ${r.name} in code`).not.toEqual([]);
    });
  }

  for (const reg of EVERY_KEY_TESTED) {
    it(`every ${reg} in the registry is named by a test`, () => {
      expect(registries[reg].filter((name) => mentioning(name).length === 0)).toEqual([]);
    });
  }

  it("every command and trigger kind is run by traced games of the shipped books", () => {
    // Commands and triggers come from the flow, not from card data: play them. Random games over
    // every pair of preset books (twice), setup included, and one forfeit.
    const commands = new Set<string>();
    const triggers = new Set<string>();
    const note = (t: Trace) => {
      for (const c of t.commands) commands.add(c.kind);
      for (const x of t.triggers) triggers.add(x.kind);
    };
    const books = dcg.presets.map((b) => b.id);
    let seed = 0;
    for (const a of books) {
      for (const b of [...books, ...books]) {
        const cfg = dcg.parseConfig({ books: [a, b] });
        if (!cfg.ok) throw new Error(cfg.error.message);
        const rng = Rng.seeded(++seed);
        const trace: Trace = { commands: [], triggers: [] };
        let s = setupBattle(cfg.value, seed, dcg.poolFor(cfg.value), dcg.presetsFor(cfg.value), trace);
        note(trace);
        while (!s.finished) {
          const legal = dcg.legal(s);
          const out = dcg.applyTraced(s, legal[rng.int(legal.length)]!);
          note(out.trace);
          if (seed === 1 && s.turn === 3 && !out.state.finished) note(dcg.applyTraced(out.state, { kind: "forceFinish" }).trace);
          s = out.state;
        }
      }
    }
    expect(registries.command.filter((k) => !commands.has(k))).toEqual([]);
    expect(registries.trigger.filter((k) => !triggers.has(k))).toEqual([]);
  });

  it("the registries are the ones the engine dispatches on", () => {
    // A command kind has a handler and a flow; every trigger kind is accepted by the card loader.
    expect(Object.keys(COMMAND_TYPE).sort()).toEqual(registries.command.slice().sort());
    // Commands run through their entry (CMD): one per kind, its own handler and trigger type.
    expect(Object.keys(CMD).sort()).toEqual(registries.command.slice().sort());
    for (const [kind, entry] of Object.entries(CMD)) {
      expect([entry.kind, entry.run, entry.type, entry.sweeps]).toEqual([
        kind,
        commandHandlers[kind as CommandKind],
        COMMAND_TYPE[kind as CommandKind],
        kind !== "AttackDamageCommand",
      ]);
    }
    expect(registries.calculator).toEqual(expect.arrayContaining([...calculators.CALCULATOR_MODES]));
    const answerAll = {
      id: "answers-all",
      name: "answers-all",
      kind: "rubric",
      cost: 1,
      attack: 1,
      life: 1,
      abilities: [
        {
          type: "TriggerAbility",
          conditions: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: registries.trigger }]],
          effect: { kind: "PlayerHand", amount: 0, target: [{ kind: "MapPlayer" }] },
        },
      ],
    };
    const pool = loadPool([answerAll]);
    expect(pool.ok && pool.value.listens.StateChanged && pool.value.listens.AbilityOblivionChanged).toBe(true);
    // explain answers why not, and nothing for a legal decision.
    const cfg = dcg.parseConfig({});
    if (!cfg.ok) throw new Error(cfg.error.message);
    const s = dcg.setup(cfg.value, 1);
    expect(dcg.explain!(s, { kind: "turnFinish" })).toMatch(/Strategy/);
    expect(dcg.explain!(s, dcg.legal(s)[0])).toBeNull();
  });

  it("notices a name that only a comment mentions", () => {
    expect(code("// FilterNowhere here\nconst a = 1; /* FilterNowhere */", "x.ts")).not.toMatch(/FilterNowhere/);
    expect(code('const url = "http://x"; // FilterNowhere', "x.ts")).toContain("http://x");
    expect(mentioning("FilterNowhereAtAll")).toEqual([]);
  });
});

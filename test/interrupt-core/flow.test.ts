import { describe, expect, it } from "vitest";
import { awaitingChance, chooseTrigger, choosingSeat, mayAct, pass, request, runTriggerCheck } from "../../engine/core/interrupt/index.ts";
import { answer, req, toyRules, toyState, type ToyState } from "./toy.ts";

const names = (s: ToyState) => s.flow.stage.map((r) => r.payload.name);

describe("interrupt core: chance, pass record, stage (toy game)", () => {
  it("a normal request goes onto the stage; the requester auto-passes and the chance moves on", () => {
    const rules = toyRules();
    const s = request(toyState(), req(0, "a"), [], rules);
    expect(names(s)).toEqual(["a"]);
    expect(s.flow.passed).toEqual([0]);
    expect(s.flow.chancePlayer).toBe(1);
    expect(s.log).toEqual([]);
    // the other seat passes: everyone passed -> the top resolves, the chance returns to the turn player
    const t = pass(s, rules);
    expect(t.log).toEqual(["a"]);
    expect(t.flow.stage).toEqual([]);
    expect(t.flow.passed).toEqual([]);
    expect(t.flow.chancePlayer).toBe(0);
  });

  it("with passAfterNormalRequest=false the requester keeps the chance and must pass itself", () => {
    const rules = toyRules({ passAfterNormalRequest: false });
    let s = request(toyState(), req(0, "a"), [], rules);
    expect(s.flow.chancePlayer).toBe(0);
    expect(s.flow.passed).toEqual([]);
    s = pass(s, rules);
    expect(s.flow.chancePlayer).toBe(1);
    expect(s.log).toEqual([]);
    s = pass(s, rules);
    expect(s.log).toEqual(["a"]);
  });

  it("LIFO: a quick request on top resolves first, and each resolution resets the pass record", () => {
    const rules = toyRules();
    let s = request(toyState(), req(0, "bottom"), [], rules);
    s = request(s, req(1, "top", "normal", "quick"), [], rules); // seat 1 answers with a quick request
    expect(names(s)).toEqual(["bottom", "top"]);
    expect(s.flow.passed).toEqual([1]);
    expect(s.flow.chancePlayer).toBe(0);
    s = pass(s, rules);
    expect(s.log).toEqual(["top"]);
    expect(s.flow.chancePlayer).toBe(0); // back to the turn player, record reset
    expect(s.flow.passed).toEqual([]);
    s = pass(s, rules);
    expect(s.log).toEqual(["top"]); // one pass is not enough after the reset
    s = pass(s, rules);
    expect(s.log).toEqual(["top", "bottom"]);
  });

  it("an immediate request resolves at once and keeps the chance", () => {
    const rules = toyRules();
    const s = request(toyState(), req(0, "now", "immediate", "main"), [], rules);
    expect(s.log).toEqual(["now"]);
    expect(s.flow.stage).toEqual([]);
    expect(s.flow.chancePlayer).toBe(0);
    expect(awaitingChance(s.flow)).toBe(true);
  });

  it("main needs the chance, the turn and an empty stage; quick needs only the chance", () => {
    const rules = toyRules();
    const s0 = toyState();
    expect(mayAct(s0.flow, 0, "main")).toBe(true);
    expect(mayAct(s0.flow, 1, "quick")).toBe(false);
    const s1 = request(s0, req(0, "a"), [], rules);
    expect(mayAct(s1.flow, 1, "main")).toBe(false); // not its turn
    expect(mayAct(s1.flow, 1, "quick")).toBe(true);
    const s2 = request(s1, req(1, "b", "normal", "quick"), [], rules);
    expect(mayAct(s2.flow, 0, "main")).toBe(false); // its turn, but the stage is not empty
    expect(mayAct(s2.flow, 0, "quick")).toBe(true);
  });

  it("passing with an empty stage returns the chance to the turn player", () => {
    const rules = toyRules();
    let s = toyState();
    s = pass(s, rules);
    expect(s.flow.chancePlayer).toBe(1);
    s = pass(s, rules);
    expect(s.flow.chancePlayer).toBe(0);
    expect(s.flow.passed).toEqual([]);
  });

  it("three seats: the top resolves only once every seat passed", () => {
    const rules = toyRules();
    let s = request(toyState(3), req(0, "a"), [], rules);
    expect(s.flow.chancePlayer).toBe(1);
    s = pass(s, rules);
    expect(s.log).toEqual([]);
    expect(s.flow.chancePlayer).toBe(2);
    s = pass(s, rules);
    expect(s.log).toEqual(["a"]);
  });

  it("an end-like effect hands the turn on; the chance follows the new turn player", () => {
    const rules = toyRules();
    let s = request(toyState(), req(0, "end"), [], rules);
    s = pass(s, rules);
    expect(s.flow.turnPlayer).toBe(1);
    expect(s.flow.chancePlayer).toBe(1);
    expect(mayAct(s.flow, 1, "main")).toBe(true);
  });

  it("the win check stops the flow: no further trigger is processed", () => {
    const rules = toyRules({ triggers: { point: [req(0, "point", "immediate", "quick")] } });
    // each point triggers another immediate point: the chain is cut by judge at score 3
    const s = request(toyState(), req(0, "point", "immediate", "main"), [], rules);
    expect(s.score).toBe(3);
    expect(s.over).toBe(true);
    expect(s.log).toEqual(["point", "point", "point"]);
  });
});

describe("interrupt core: the trigger check (6-1..6-12)", () => {
  it("immediate first (turn player first, main before quick), then normal; a main normal is discarded on a non-empty stage", () => {
    const rules = toyRules({
      triggers: {
        boom: [
          req(1, "b-imm-quick", "immediate", "quick"),
          req(0, "a-normal-main", "normal", "main"),
          req(1, "b-normal-main", "normal", "main"),
          req(0, "a-imm-quick", "immediate", "quick"),
          req(0, "a-imm-main", "immediate", "main"),
          req(1, "b-normal-quick", "normal", "quick"),
        ],
      },
    });
    let s = request(toyState(), req(0, "boom"), [], rules);
    s = pass(s, rules);
    expect(s.log).toEqual(["boom", "a-imm-main", "a-imm-quick", "b-imm-quick", "discarded:b-normal-main"]);
    // a's main normal found the stage empty and was staged; b's main normal then found it occupied
    expect(names(s)).toEqual(["a-normal-main", "b-normal-quick"]);
    expect(s.flow.chancePlayer).toBe(0);
    expect(s.flow.cursor).toBeNull();
    expect(s.flow.buffer).toEqual([]);
  });

  it("requests triggered while resolving immediate ones go back into the buffer and are processed in the same check", () => {
    const rules = toyRules({
      triggers: {
        charge: [req(0, "draw", "normal", "main")],
        end: [req(1, "charge", "immediate", "main")],
      },
    });
    let s = request(toyState(), req(0, "end"), [], rules);
    s = pass(s, rules);
    expect(s.log).toEqual(["end", "charge"]);
    expect(names(s)).toEqual(["draw"]);
    expect(s.flow.turnPlayer).toBe(1);
    expect(s.flow.chancePlayer).toBe(1);
  });

  it("the turn player's immediate triggers resolve before the other's even when the other triggered first", () => {
    const rules = toyRules({ triggers: { x: [req(1, "late", "immediate", "main"), req(0, "early", "immediate", "main")] } });
    let s = toyState(2, 1); // seat 1 has the turn: its trigger now goes first
    s = request(s, req(1, "x"), [], rules);
    s = pass(s, rules);
    expect(s.log).toEqual(["x", "late", "early"]);
  });

  it("triggers caused by a request's costs are checked before the request itself is staged or resolved", () => {
    const rules = toyRules();
    const s = request(toyState(), req(0, "main-act"), [req(0, "cost-trigger", "immediate", "quick"), req(1, "cost-normal", "normal", "quick")], rules);
    expect(s.log).toEqual(["cost-trigger"]);
    expect(names(s)).toEqual(["cost-normal", "main-act"]); // the request lands above what its costs triggered
  });

  it("staging a request can trigger (6-10-8)", () => {
    const rules = toyRules({ stagedTriggers: { bait: [req(1, "snap", "immediate", "quick")] } });
    const s = request(toyState(), req(0, "bait"), [], rules);
    expect(s.log).toEqual(["snap"]);
    expect(names(s)).toEqual(["bait"]);
    expect(s.flow.chancePlayer).toBe(1);
  });

  it("a resolution waiting for a decision suspends the flow, even mid trigger check, and resumes where it stood", () => {
    const rules = toyRules({
      triggers: {
        go: [req(0, "ask-a", "immediate", "main"), req(0, "after", "immediate", "quick"), req(1, "norm", "normal", "quick")],
      },
    });
    let s = request(toyState(), req(0, "go"), [], rules);
    s = pass(s, rules);
    expect(s.log).toEqual(["go", "ask-a"]);
    expect(s.waiting).toBe("ask-a");
    expect(s.flow.resolving?.payload.name).toBe("ask-a");
    expect(s.flow.cursor).not.toBeNull(); // the check is suspended, not lost
    expect(awaitingChance(s.flow)).toBe(false);
    expect(mayAct(s.flow, 0, "quick")).toBe(false);
    s = answer(s, rules, [req(1, "from-answer", "immediate", "quick")]);
    expect(s.log).toEqual(["go", "ask-a", "answered:ask-a", "after", "from-answer"]);
    expect(names(s)).toEqual(["norm"]);
    expect(s.flow.chancePlayer).toBe(0);
    expect(awaitingChance(s.flow)).toBe(true);
  });

  it("a suspended stage resolution resumes into step [2]: chance to the turn player", () => {
    const rules = toyRules();
    let s = request(toyState(), req(0, "ask-attack"), [], rules);
    s = pass(s, rules);
    expect(s.waiting).toBe("ask-attack");
    s = answer(s, rules);
    expect(s.flow.chancePlayer).toBe(0);
    expect(s.flow.resolving).toBeNull();
  });

  it("runTriggerCheck on an idle flow changes nothing; no function mutates its input", () => {
    const rules = toyRules({ triggers: { boom: [req(1, "x", "immediate", "quick")] } });
    const s0 = toyState();
    expect(runTriggerCheck(s0, rules)).toEqual(s0);
    const s1 = request(s0, req(0, "boom"), [], rules);
    const frozen = JSON.stringify(s1);
    pass(s1, rules);
    request(s1, req(1, "q", "normal", "quick"), [], rules);
    expect(JSON.stringify(s1)).toBe(frozen);
    expect(JSON.stringify(s0)).toBe(JSON.stringify(toyState()));
  });
});

describe("interrupt core: the player chooses the order of its triggered requests ([6-5-2]/[6-10-2])", () => {
  const boom = {
    boom: [req(0, "first", "normal", "main"), req(1, "other", "normal", "main"), req(0, "second", "normal", "main"), req(0, "first", "normal", "main")],
  };

  it("off (the default): first-in-first-out, the later main normal trigger is discarded, no choice key", () => {
    const rules = toyRules({ triggers: boom });
    const s = pass(request(toyState(), req(0, "boom"), [], rules), rules);
    expect(names(s)).toEqual(["first"]);
    expect(s.log).toEqual(["boom", "discarded:second", "discarded:first", "discarded:other"]);
    expect("choice" in s.flow).toBe(false);
  });

  it("on: the check suspends for the controller with one option per distinct request; its pick changes what is staged", () => {
    const rules = toyRules({ triggers: boom, chooseTriggerOrder: true });
    const s = pass(request(toyState(), req(0, "boom"), [], rules), rules);
    expect(s.log).toEqual(["boom"]);
    // buffer: first(0), other(1), second(0), first(0): the two "first" are one option
    expect(s.flow.choice).toEqual({ seat: 0, options: [0, 2] });
    expect(choosingSeat(s.flow)).toBe(0);
    expect(awaitingChance(s.flow)).toBe(false);
    expect(mayAct(s.flow, 0, "quick")).toBe(false);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s); // plain JSON

    const pickedSecond = chooseTrigger(s, 2, rules);
    expect("choice" in pickedSecond.flow).toBe(false);
    expect(names(pickedSecond)).toEqual(["second"]);
    // after the pick, the two "first" are the same request: no further question, both discarded
    expect(pickedSecond.log).toEqual(["boom", "discarded:first", "discarded:first", "discarded:other"]);
    expect(pickedSecond.flow.cursor).toBeNull();
    expect(pickedSecond.flow.chancePlayer).toBe(0);

    // picking "first" leaves "second" and the other "first", still different: a second question
    let pickedFirst = chooseTrigger(s, 0, rules);
    expect(names(pickedFirst)).toEqual(["first"]);
    expect(pickedFirst.flow.choice).toEqual({ seat: 0, options: [1, 2] }); // buffer: other, second, first
    pickedFirst = chooseTrigger(pickedFirst, 1, rules);
    expect(pickedFirst.log).toEqual(["boom", "discarded:second", "discarded:first", "discarded:other"]);
  });

  it("an index that is not an option changes nothing", () => {
    const rules = toyRules({ triggers: boom, chooseTriggerOrder: true });
    const s = pass(request(toyState(), req(0, "boom"), [], rules), rules);
    expect(chooseTrigger(s, 1, rules)).toBe(s);
    expect(chooseTrigger(s, 3, rules)).toBe(s);
  });

  it("identical requests only: no decision, the same state as first-in-first-out", () => {
    const same = { boom: [req(0, "p", "immediate", "quick"), req(0, "p", "immediate", "quick")] };
    const on = toyRules({ triggers: same, chooseTriggerOrder: true });
    const off = toyRules({ triggers: same });
    const a = pass(request(toyState(), req(0, "boom"), [], on), on);
    const b = pass(request(toyState(), req(0, "boom"), [], off), off);
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.log).toEqual(["boom", "p", "p"]);
  });

  it("immediate triggers: the chosen one resolves first, and what it triggers joins the same check", () => {
    const rules = toyRules({
      chooseTriggerOrder: true,
      triggers: { boom: [req(0, "a", "immediate", "main"), req(0, "point", "immediate", "main")], point: [req(1, "b", "immediate", "main")] },
    });
    let s = pass(request(toyState(), req(0, "boom"), [], rules), rules);
    expect(s.flow.choice).toEqual({ seat: 0, options: [0, 1] });
    s = chooseTrigger(s, 1, rules);
    expect(s.log).toEqual(["boom", "point", "a", "b"]); // seat 0's remaining trigger before seat 1's
    expect(s.score).toBe(1);
    expect(s.flow.buffer).toEqual([]);
  });

  it("a custom sameTrigger decides what counts as the same request", () => {
    const base = toyRules({ triggers: { boom: [req(0, "x1", "normal", "quick"), req(0, "x2", "normal", "quick")] }, chooseTriggerOrder: true });
    const rules = { ...base, sameTrigger: (a: { payload: { name: string } }, b: { payload: { name: string } }) => a.payload.name[0] === b.payload.name[0] };
    const s = pass(request(toyState(), req(0, "boom"), [], rules), rules);
    expect("choice" in s.flow).toBe(false);
    expect(names(s)).toEqual(["x1", "x2"]);
  });
});

// A game loop of your own, with a trained bot as the opponent: no server, just the npm package.
//   node node_modules/cardgym/scripts/examples/game-loop.mjs [--seed N] [--human]
// Seat 0 is yours: a scripted player (it takes the first legal decision) or, with --human, you at
// the keyboard. Seat 1 is the shipped ONNX policy. The npm package ships it; it runs wherever
// `cardgym` is installed (docs/api.md).
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { dcg as game, seatAgent, stateHash } from "cardgym";

const USAGE = "usage: node node_modules/cardgym/scripts/examples/game-loop.mjs [--seed N] [--human]";
let flags;
try {
  flags = parseArgs({
    options: { seed: { type: "string", default: "1" }, human: { type: "boolean", default: false }, help: { type: "boolean", default: false } },
  }).values;
} catch (e) {
  console.error(`${e.message}\n${USAGE}`);
  process.exit(2);
}
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}
const seed = Number(flags.seed);
if (!Number.isSafeInteger(seed) || seed < 0) {
  console.error(`--seed must be a whole number, got "${flags.seed}"\n${USAGE}`);
  process.exit(2);
}
const human = flags.human;

const config = game.parseConfig({ seats: 2 });
if (!config.ok) throw new Error(config.error.message);
let state = game.setup(config.value, seed);
const bot = await seatAgent("onnx:builtin/dcg-ppo-v3", { game: "dcg", seat: 1, seed });
// Your answers, one line each, typed or piped in.
const lines = human ? createInterface({ input: process.stdin })[Symbol.asyncIterator]() : null;

let step = 0;
for (;;) {
  const seat = game.actor(state);
  if (seat === "terminal") break;
  const legal = game.legal(state);
  let index = 0;
  if (seat === 1) {
    index = await bot.decide({ game, seat, view: game.view(state, seat), legal, step });
  } else if (lines) {
    console.log(game.render(state));
    legal.forEach((d, i) => console.log(`  ${i}: ${game.describe(state, d)}`));
    // Ask until the answer is one of the numbers shown: a typo never plays a decision.
    for (index = -1; index < 0;) {
      process.stdout.write("your decision> ");
      const line = await lines.next();
      if (line.done) {
        console.log(`\ninput ended after ${step} decisions: the game is left unfinished`);
        process.exit(1);
      }
      const answer = Number(line.value.trim());
      if (line.value.trim() !== "" && Number.isInteger(answer) && answer >= 0 && answer < legal.length) index = answer;
      else console.log(`"${line.value.trim()}" is not a number from 0 to ${legal.length - 1}`);
    }
  }
  const decision = legal[index];
  if (step < 6 || seat === 0) console.log(`seat ${seat}: ${game.describe(state, decision)}`);
  const next = game.apply(state, decision);
  if (!next.ok) throw new Error(next.error.message);
  state = next.state;
  step += 1;
}
await lines?.return?.();
const returns = game.returns(state);
console.log(
  `game over after ${step} decisions; returns ${returns.join(", ")}; winner: ${returns[1] > returns[0] ? "the bot" : returns[0] > returns[1] ? "seat 0" : "nobody"}`,
);
console.log(`final state hash ${stateHash(state)}`);

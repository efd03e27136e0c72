#!/usr/bin/env node
/**
 * The `cardgym` command of the npm package: one bin for the CLIs, `cardgym <command> [args]`.
 * Each command is the same program `npm run <command>` runs in a checkout.
 */
const COMMANDS: Record<string, { module: string; summary: string }> = {
  serve: { module: "./serve.ts", summary: "serve RL sessions over HTTP + msgpack (npm start)" },
  play: { module: "./play.ts", summary: "play a game between agents, print the board, write its record" },
  arena: { module: "./arena.ts", summary: "round robin between agents, reports and strength gates" },
  replay: { module: "./replay.ts", summary: "re-run a GameRecord and print its final hash" },
};

const USAGE = `usage: cardgym <command> [args]   (cardgym <command> --help for its flags)\ncommands:\n${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(8)}${c.summary}`)
  .join("\n")}`;

const [command, ...rest] = process.argv.slice(2);
if (command === undefined || command === "--help" || command === "-h" || command === "help") {
  console.log(USAGE);
} else {
  const entry = COMMANDS[command];
  if (entry === undefined) {
    console.error(`error: unknown command "${command}"\n${USAGE}`);
    process.exitCode = 2;
  } else {
    // The command modules read process.argv.slice(2) as their own arguments.
    process.argv = [process.argv[0] ?? "node", command, ...rest];
    await import(entry.module);
  }
}

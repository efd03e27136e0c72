#!/usr/bin/env node
/**
 * The `cardgym` command of the npm package: one bin for the CLIs, `cardgym <command> [args]`.
 * Each command is the same program `npm run <command>` runs in a checkout.
 */
import { nameCommands } from "./cli.ts";

/** Each command: its program, what it does, and the npm script that runs it in a checkout. */
const COMMANDS: Record<string, { module: string; summary: string; script: string }> = {
  serve: { module: "./serve.ts", summary: "serve RL sessions over HTTP + msgpack (npm start)", script: "npm start" },
  play: { module: "./play.ts", summary: "play a game between agents, print the board, write its record", script: "npm run play" },
  arena: { module: "./arena.ts", summary: "round robin between agents, reports and strength gates", script: "npm run arena" },
  replay: { module: "./replay.ts", summary: "re-run a GameRecord and print its final hash", script: "npm run replay" },
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
    // The command modules read process.argv.slice(2) as their own arguments, and their messages
    // name these commands as this bin's (`cardgym replay x`, not `npm run replay -- x`).
    process.argv = [process.argv[0] ?? "node", command, ...rest];
    nameCommands(Object.fromEntries(Object.entries(COMMANDS).map(([name, c]) => [c.script, `cardgym ${name}`])));
    await import(entry.module);
  }
}

/**
 * Every command docs/*.md and python/README.md show names things that exist and passes flags its
 * program accepts, checked cheaply (no command is run; test/docs/readme-commands.test.ts runs the
 * README's): an `npm run` script is in package.json, a file a command runs is in the repository, a
 * `cd` goes to a folder that is, and the flags a command passes are accepted by its program's own
 * parser: our TypeScript CLIs' (scripts/cli.ts's parseCli, called here in this process with the
 * doc's arguments and stopped before any work), or, for Python and shell scripts, the flags they
 * declare (an argparse `add_argument("--x"`, a shell `--x)` case). What cannot be checked that way
 * (curl, git, Ray, pip, the installed package's files, placeholders) is listed in
 * docs-commands.json with the reason; an entry that matches no doc command, or a command that
 * needs none, fails the test.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { repoRoot } from "../scripts/run-script.ts";
import { docCommands, docFiles, unwrap, type DocCommand } from "./doc-commands.ts";
import { fencedBlocks } from "./markdown.ts";
import { simpleCommands } from "./shell-words.ts";

/** The CLI bodies scripts hand to main(), by script; parseCli stops a body with what it parsed. */
const cli = vi.hoisted(() => ({
  bodies: new Map<string, () => unknown>(),
  loading: "",
  Parsed: class Parsed {},
}));
vi.mock("../../scripts/cli.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../scripts/cli.ts")>();
  return {
    ...real,
    parseCli: (...args: Parameters<typeof real.parseCli>) => {
      real.parseCli(...args); // throws UsageError for a flag it does not accept
      throw new cli.Parsed();
    },
    main: (body: () => unknown) => void cli.bodies.set(cli.loading, body),
  };
});

interface Entry {
  readonly why: string;
  readonly coveredBy?: string;
}
const allowed = (JSON.parse(readFileSync(new URL("./docs-commands.json", import.meta.url), "utf8")) as { commands: Record<string, Entry> }).commands;
const scripts = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const commands: DocCommand[] = docFiles(repoRoot).flatMap((f) => docCommands(repoRoot, f));

/** A program and the arguments a doc command gives it, or why it cannot be checked here. */
type Target =
  | { readonly kind: "cli"; readonly file: string; readonly args: readonly string[] }
  | { readonly kind: "declared"; readonly file: string; readonly args: readonly string[] }
  | { readonly kind: "exists"; readonly file: string }
  | { readonly kind: "builtin" }
  | { readonly kind: "unchecked"; readonly reason: string };

/** The `--flag` words of a command's arguments (synopsis brackets removed), without their `=value`. */
function flags(args: readonly string[]): string[] {
  return args
    .map((a) => a.replace(/^\[+/, "").replace(/\]+$/, ""))
    .filter((a) => /^--?[a-zA-Z]/.test(a))
    .map((a) => a.replace(/=.*$/, ""));
}

const PYTHON = /^(python3?|(python\/)?\.venv[\w-]*\/bin\/python3?)$/;

/** What one simple command runs, as far as this test can tell. */
function target(words: readonly string[], cwd: string): Target {
  const [head = "", ...rest] = unwrap(words);
  if (head === "cd" || head === "." || head === "source" || head === "export") return { kind: "builtin" };
  if (head === "npm") return npmTarget(rest);
  if (head === "npx" && rest[0] === "tsx") return fileTarget(rest.slice(1), cwd);
  if (head === "npx" && rest[0] === "cardgym") return cardgymTarget(rest.slice(1));
  if (head === "tsx") return fileTarget(rest, cwd);
  if (head === "node") return fileTarget(withoutNodeOptions(rest), cwd);
  if (head === "bash") return fileTarget(rest, cwd);
  if (PYTHON.test(head) && rest[0] !== "-c" && rest[0] !== "-m") return fileTarget(rest, cwd);
  return { kind: "unchecked", reason: `${head} is not a program of this repository` };
}

/** Node's own options before the program (`--import tsx` takes a value). */
function withoutNodeOptions(args: readonly string[]): string[] {
  const rest = [...args];
  while (rest[0]?.startsWith("-")) rest.splice(0, rest[0] === "--import" ? 2 : 1);
  return rest;
}

function npmTarget(args: readonly string[]): Target {
  const [sub = "", ...rest] = args;
  const name = sub === "run" ? (rest.shift() ?? "") : sub;
  if (!["run", "test", "start"].includes(sub)) return { kind: "unchecked", reason: `npm ${sub} is npm's own` };
  if (/^<.*>$/.test(name)) return { kind: "unchecked", reason: `${name} is a placeholder` };
  const body = scripts[name];
  if (body === undefined) throw new Error(`no npm script "${name}" in package.json`);
  const extra = rest[0] === "--" ? rest.slice(1) : rest;
  // The script's last command gets the arguments after `--`.
  const last = simpleCommands(body).at(-1) ?? [];
  const program = target([...last, ...extra], ".");
  // Without arguments, a script that exists is all the doc asks for (vitest, eslint, ... included).
  return extra.length === 0 && program.kind === "unchecked" ? { kind: "exists", file: "package.json" } : program;
}

/** `npx cardgym <command>`: the package's bin runs scripts/<command's module> (scripts/cardgym.ts). */
function cardgymTarget(args: readonly string[]): Target {
  const [command, ...rest] = args;
  if (command === undefined) return { kind: "exists", file: "scripts/cardgym.ts" };
  if (/^<.*>$/.test(command)) return { kind: "unchecked", reason: `${command} is a placeholder` };
  const bin = readFileSync(join(repoRoot, "scripts/cardgym.ts"), "utf8");
  const module = new RegExp(`^\\s+${command}: \\{ module: "\\./([\\w-]+\\.ts)"`, "m").exec(bin)?.[1];
  if (module === undefined) throw new Error(`the cardgym bin has no command "${command}"`);
  return fileTarget([`scripts/${module}`, ...rest], ".");
}

/** A file run with arguments: `scripts/run-bundled.mjs X` runs X; a file of the installed npm package is checked in this repository. */
function fileTarget(args: readonly string[], cwd: string): Target {
  const [file, ...rest] = args;
  if (file === undefined) return { kind: "unchecked", reason: "options without a program" };
  if (file === "...") return { kind: "unchecked", reason: "the program is elided (...)" };
  if (file === "scripts/run-bundled.mjs") return fileTarget(rest, cwd);
  // The npm package's files mirror this repository's layout (docs/api.md).
  const path = posix.normalize(posix.join(cwd, file)).replace(/^node_modules\/cardgym\//, "");
  if (!existsSync(join(repoRoot, path)) || !statSync(join(repoRoot, path)).isFile()) throw new Error(`${path} does not exist`);
  if (flags(rest).length === 0) return { kind: "exists", file: path };
  const source = readFileSync(join(repoRoot, path), "utf8");
  if (path.endsWith(".ts") && /\bparseCli\(|^export function parseArgs\(/m.test(source)) return { kind: "cli", file: path, args: rest };
  return { kind: "declared", file: path, args: rest };
}

/** A flag a Python or shell script (or a plain .mjs) declares: argparse's `"--x"`, a shell case `--x)`, a parseArgs option. */
function declares(source: string, flag: string): boolean {
  const name = flag.replace(/^-+/, "");
  return (
    source.includes(`"${flag}"`) ||
    source.includes(`'${flag}'`) ||
    new RegExp(`(^|[\\s|(])${flag}\\)`, "m").test(source) ||
    new RegExp(`\\b${name}: \\{ type:`).test(source)
  );
}

/** Runs a CLI's body with the doc's arguments: undefined if its parser accepted them, else the parser's message. */
async function parseWith(file: string, args: readonly string[]): Promise<string | undefined> {
  const abs = join(repoRoot, file);
  if (!/\bparseCli\(/.test(readFileSync(abs, "utf8"))) {
    // A CLI with a parser of its own, exported (scripts/test-all.ts); --help is answered before it.
    const { parseArgs } = (await import(abs)) as { parseArgs: (argv: readonly string[]) => unknown };
    try {
      parseArgs(args.filter((a) => a !== "--help" && a !== "-h"));
      return undefined;
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (!cli.bodies.has(file)) {
    cli.loading = file;
    await import(abs);
    cli.loading = "";
  }
  const body = cli.bodies.get(file);
  if (body === undefined) return `${file} does not hand its body to main()`;
  const saved = process.argv;
  process.argv = [process.execPath, abs, ...args];
  try {
    await body();
    return `${file} ran past its flags without calling parseCli`;
  } catch (e) {
    return e instanceof cli.Parsed ? undefined : (e as Error).message.split("\n")[0];
  } finally {
    process.argv = saved;
  }
}

interface Checked {
  readonly command: DocCommand;
  readonly problems: string[];
  readonly unchecked: string[];
}

const checked: Checked[] = [];
/** The CLIs whose parser saw a doc's flags. */
const parsed = new Set<string>();

describe("the commands the docs show", () => {
  beforeAll(async () => {
    for (const command of commands) {
      const problems: string[] = [];
      const unchecked: string[] = [];
      for (const { words, cwd, enters } of command.parts) {
        let t: Target;
        try {
          t = target(words, cwd);
        } catch (e) {
          problems.push((e as Error).message);
          continue;
        }
        if (t.kind === "unchecked") unchecked.push(t.reason);
        else if (t.kind === "builtin") {
          if (enters !== undefined && !existsSync(join(repoRoot, enters))) problems.push(`cd ${enters}: no such folder`);
        } else if (t.kind === "cli") {
          parsed.add(t.file);
          const refused = await parseWith(t.file, t.args);
          if (refused !== undefined) problems.push(`${t.file} refuses the flags: ${refused}`);
        } else if (t.kind === "declared") {
          const source = readFileSync(join(repoRoot, t.file), "utf8");
          for (const flag of flags(t.args)) if (!declares(source, flag)) problems.push(`${t.file} declares no ${flag}`);
        }
      }
      checked.push({ command, problems, unchecked });
    }
  }, 120_000);

  it("are found in the docs, and most are checked by their program's parser", () => {
    expect(commands.length).toBeGreaterThan(100);
    expect(commands.filter((c) => c.where.startsWith("python/README")).length).toBeGreaterThan(0);
    expect(parsed.size, [...parsed].join("\n")).toBeGreaterThan(15);
  });

  it("are read the way a shell reads them", () => {
    const [block] = fencedBlocks(
      "```sh\n# a comment line\nnpm run a -- --x 'y # z'  # what's this\ncd python && nice -n 10 .venv/bin/python b.py \\\n  --c 1 >/dev/null 2>&1\n```\n",
    );
    expect(block?.commands).toEqual(["npm run a -- --x 'y # z'", "cd python && nice -n 10 .venv/bin/python b.py --c 1 >/dev/null 2>&1"]);
    expect(simpleCommands(block?.commands[1] ?? "")).toEqual([
      ["cd", "python"],
      ["nice", "-n", "10", ".venv/bin/python", "b.py", "--c", "1"],
    ]);
    expect(simpleCommands(`a "b \\"c\\" $(d "e")" <file> | f; g || h`)).toEqual([["a", 'b "c" $(d "e")', "<file>"], ["f"], ["g"], ["h"]]);
    expect(unwrap(["FOO=1", "time", "nice", "-n", "10", "npm", "test"])).toEqual(["npm", "test"]);
  });

  it("name scripts and files that exist and pass flags their programs accept", () => {
    const wrong = checked
      .filter((c) => c.problems.length > 0 && !(c.command.text in allowed))
      .map((c) => `${c.command.where}: ${c.command.text}\n    ${c.problems.join("\n    ")}`);
    expect(wrong, wrong.join("\n")).toEqual([]);
  });

  it("that cannot be checked here are listed in docs-commands.json with the reason", () => {
    const unlisted = checked
      .filter((c) => c.unchecked.length > 0 && !(c.command.text in allowed))
      .map((c) => `${c.command.where}: ${c.command.text} (${c.unchecked.join("; ")})`);
    expect(unlisted, `not checkable, add to test/docs/docs-commands.json:\n${unlisted.join("\n")}`).toEqual([]);
  });

  it("docs-commands.json lists only doc commands that cannot be checked, each with a reason", () => {
    for (const [text, entry] of Object.entries(allowed)) {
      const uses = checked.filter((c) => c.command.text === text);
      expect(uses.length, `docs-commands.json lists "${text}", which no doc shows`).toBeGreaterThan(0);
      expect(
        uses.some((c) => c.unchecked.length > 0 || c.problems.length > 0),
        `docs-commands.json lists "${text}", which this test checks: remove it`,
      ).toBe(true);
      expect(entry.why.length, text).toBeGreaterThan(20);
      if (entry.coveredBy) expect(existsSync(join(repoRoot, entry.coveredBy)), entry.coveredBy).toBe(true);
    }
  });
});

/**
 * The commands the docs show, where they show them: every line of a sh/bash block, the command
 * lines of plain blocks (a block with no language that shows a command's synopsis), and inline
 * code that starts like a command of this repository (`npm run ...`, `npx tsx scripts/...`,
 * `python python/bench.py`, ...). Each with the folder it runs in: a `cd` line in a block
 * moves the lines after it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { fencedBlocks } from "./markdown.ts";
import { simpleCommands, unwrap } from "./shell-words.ts";

export interface DocCommand {
  /** `docs/x.md:12` */
  readonly where: string;
  /** The command as the doc shows it (continuations joined, comment removed). */
  readonly text: string;
  /** Its simple commands, each as words, with the folder (repository-relative) each runs in. */
  readonly parts: readonly Part[];
}

export interface Part {
  readonly words: readonly string[];
  readonly cwd: string;
  /** For a `cd` to a folder named in the doc: where it goes (repository-relative). */
  readonly enters?: string;
}

/** Inline code that is a command of ours, not a path or a value. */
const INLINE_COMMAND =
  /^([A-Z_]+=\S* )*(nice -n \d+ )?(npm (run|test|start)\b|npx (tsx|cardgym)\b|tsx scripts\/|node (-\S+ )*\S+\.(ts|mjs|js)\b|node --|python3? \S+\.py\b|(python\/)?\.venv[\w-]*\/bin\/python\b|bash scripts\/)/;
/** A line of a plain block that starts a command (the rest of such a block is output or syntax). */
const PLAIN_COMMAND = /^(npm (run|test|start)\b|npx |node |python3? |bash scripts\/)/;

export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  const python = readdirSync(join(root, "python"))
    .filter((f) => /^README/.test(f))
    .map((f) => `python/${f}`);
  return [...docs, ...python];
}

export function docCommands(root: string, file: string): DocCommand[] {
  const text = readFileSync(join(root, file), "utf8");
  const found: DocCommand[] = [];
  for (const block of fencedBlocks(text)) {
    if (block.lang === "sh" || block.lang === "bash") {
      let cwd = ".";
      // `git clone <this repo> DIR`: DIR is this repository.
      let clone = "";
      for (const command of block.commands) {
        const parts = simpleCommands(command).map((words): Part => {
          const [head, sub, ...rest] = unwrap(words);
          if (head === "git" && sub === "clone") clone = rest.at(-1) ?? "";
          if (head !== "cd" || rest.length > 0 || sub === undefined || sub.includes("$")) return { words, cwd };
          const before = cwd;
          cwd = sub === clone ? "." : posix.normalize(posix.join(cwd, sub));
          return { words, cwd: before, enters: cwd };
        });
        found.push({ where: `${file}:${block.line}`, text: command, parts });
      }
    } else if (block.lang === "") {
      for (const command of plainCommands(block.text)) found.push(inline(`${file}:${block.line}`, command));
    }
  }
  for (const { line, code } of inlineCode(text)) if (INLINE_COMMAND.test(code)) found.push(inline(`${file}:${line}`, code));
  return found;
}

/** A command shown outside a block runs from the repository's root, or from python/ when it runs python/'s venv as `.venv/` (after `nice` or variables, if any). */
function inline(where: string, text: string): DocCommand {
  const parts = simpleCommands(text);
  const cwd = unwrap(parts[0] ?? [])[0]?.startsWith(".venv") ? "python" : ".";
  return { where, text, parts: parts.map((words) => ({ words, cwd })) };
}

function plainCommands(body: string): string[] {
  const commands: string[] = [];
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] ?? "";
    if (!PLAIN_COMMAND.test(line)) continue;
    while (line.endsWith("\\") && i + 1 < lines.length) line = `${line.slice(0, -1).trimEnd()} ${(lines[++i] ?? "").trim()}`;
    commands.push(line.trim());
  }
  return commands;
}

/** Inline code spans outside fenced blocks (a span may wrap to the next line), with the line each starts on. */
function inlineCode(markdown: string): { line: number; code: string }[] {
  const lines = markdown.split("\n");
  let fenced = false;
  const prose = lines.map((l) => {
    if (/^```/.test(l)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : l;
  });
  const joined = prose.join("\n");
  const spans: { line: number; code: string }[] = [];
  for (const m of joined.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) {
    const line = joined.slice(0, m.index).split("\n").length;
    spans.push({ line, code: (m[1] ?? "").replace(/\s*\n\s*/g, " ").trim() });
  }
  return spans;
}

export { unwrap };

/** Markdown as the docs tests read it: fenced blocks and the shell commands in them. */

export interface Block {
  readonly lang: string;
  readonly line: number;
  readonly text: string;
  /** Shell commands with comments removed and `\` continuations joined (sh blocks only). */
  readonly commands: readonly string[];
}

/** The fenced blocks of a Markdown document with the commands of its shell blocks. */
export function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? "");
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    const body = lines.slice(start, end);
    const lang = open[1] ?? "";
    const commands: string[] = [];
    if (lang === "sh" || lang === "bash") {
      let pending = "";
      for (const raw of body) {
        const line = withoutComment(raw).trimEnd();
        if (line.endsWith("\\")) {
          pending += line.slice(0, -1).trim() + " ";
          continue;
        }
        const command = (pending + line.trim()).trim();
        pending = "";
        if (command !== "") commands.push(command);
      }
    }
    blocks.push({ lang, line: start, text: body.join("\n"), commands });
    i = end;
  }
  return blocks;
}

/** A shell line without its comment: from a `#` that starts a word outside quotes to the end. */
export function withoutComment(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (quote !== "") {
      if (c === quote) quote = "";
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) return line.slice(0, i);
  }
  return line;
}

/** The fenced blocks of one `## ` or `### ` section (up to the next such heading). */
export function sectionBlocks(markdown: string, heading: string): Block[] {
  const at = markdown.indexOf(`${heading}\n`);
  if (at < 0) throw new Error(`no section "${heading}"`);
  const rest = markdown.slice(at + heading.length);
  const next = /\n#{2,3} /.exec(rest);
  return fencedBlocks(next ? rest.slice(0, next.index) : rest);
}

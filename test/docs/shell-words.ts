/**
 * Enough of the shell's grammar to read the commands the docs show: words with their quotes
 * removed, simple commands split at `&&`, `||`, `;`, `|` and `&`, redirections dropped, `$(...)`
 * kept as one word. Not a shell: no expansion, no globbing; what a command's program would see as
 * its arguments, for checking names and flags.
 */

/** The simple commands of one command line, each as its words. */
export function simpleCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    const kept = dropRedirections(words);
    if (kept.length > 0) commands.push(kept);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw new Error(`unclosed ' in: ${line}`);
      word += line.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (c === '"') {
      i = readDoubleQuoted(line, i, (s) => (word += s));
      inWord = true;
    } else if (c === "\\") {
      word += line[i + 1] ?? "";
      inWord = true;
      i++;
    } else if (c === "$" && line[i + 1] === "(") {
      const close = matchingParen(line, i + 1);
      word += line.slice(i, close + 1);
      inWord = true;
      i = close;
    } else if (c === "&" && line[i + 1] !== ">" && !/[<>]$/.test(word)) {
      endCommand();
      if (line[i + 1] === "&") i++;
    } else if (c === "|" || c === ";") {
      endCommand();
      if (line[i + 1] === "|") i++;
    } else if (c === "<" && !inWord && /^<[\w -]+>/.test(line.slice(i))) {
      // A placeholder (`<script>`, `<this repo>`), not a redirection.
      const close = line.indexOf(">", i);
      word += line.slice(i, close + 1);
      inWord = true;
      i = close;
    } else if (/\s/.test(c)) {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

/** Appends a double-quoted string's content (backslash escapes `"`, `\`, `$` and a backquote) and returns the closing quote's index. */
function readDoubleQuoted(line: string, open: number, append: (s: string) => void): number {
  for (let i = open + 1; i < line.length; i++) {
    const c = line[i] ?? "";
    if (c === '"') return i;
    if (c === "\\" && /["\\$`]/.test(line[i + 1] ?? "")) {
      append(line[i + 1] ?? "");
      i++;
    } else if (c === "$" && line[i + 1] === "(") {
      const close = matchingParen(line, i + 1);
      append(line.slice(i, close + 1));
      i = close;
    } else append(c);
  }
  throw new Error(`unclosed " in: ${line}`);
}

function matchingParen(line: string, open: number): number {
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    const c = line[i];
    if (c === "'") i = line.indexOf("'", i + 1);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
    if (i < 0) break;
  }
  throw new Error(`unclosed $( in: ${line}`);
}

/** Words without redirections (`>/dev/null`, `2>&1`, `> file`, `< file`); placeholders (`<file>`) stay. */
function dropRedirections(words: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? "";
    if (/^<[\w -]+>$/.test(w)) kept.push(w);
    else if (/^(\d*|&)(>>?|<)$/.test(w))
      i++; // the target is the next word
    else if (!/^(\d*|&)(>>?|<)/.test(w)) kept.push(w);
  }
  return kept;
}

/** Leading `NAME=value` words (an environment for the command) and wrappers that run the rest (`nice -n 10`, `time`, `sudo`). */
export function unwrap(words: readonly string[]): string[] {
  let rest = [...words];
  for (;;) {
    if (/^[A-Za-z_]\w*=/.test(rest[0] ?? "") && rest.length > 1) rest = rest.slice(1);
    else if (rest[0] === "time" || rest[0] === "sudo") rest = rest.slice(1);
    else if (rest[0] === "nice") rest = rest[1] === "-n" ? rest.slice(3) : rest.slice(1);
    else return rest;
  }
}

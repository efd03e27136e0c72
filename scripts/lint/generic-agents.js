// @ts-check
/**
 * agents/ is game-agnostic (docs/agents.md): an agent reads a game through the Game contract only,
 * and whatever it knows about one game (an evaluator, a planner, a tutorial line) lives in a file
 * named for that game, reached through the by-game tables of agents/evaluators/index.ts. This rule
 * refuses an import of engine/<game>/ (any engine folder but core/) from an agents/ file unless the
 * file is that game's: its name is `<game>.ts` or starts with `<game>-`, or it sits in a folder
 * named `<game>`.
 */
import { readdirSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { importSources } from "./import-sources.js";

/** The game folders of engine/ (every folder but core/), read once per root. */
const gamesByRoot = new Map();

/** @param {string} root */
function gameFolders(root) {
  let games = gamesByRoot.get(root);
  if (!games) {
    games = new Set(
      readdirSync(join(root, "engine"), { withFileTypes: true })
        .filter((d) => d.isDirectory() && d.name !== "core")
        .map((d) => d.name),
    );
    gamesByRoot.set(root, games);
  }
  return /** @type {Set<string>} */ (games);
}

/**
 * Whether the agents/ file at `rel` (relative to agents/) belongs to `game`.
 * @param {string} rel
 * @param {string} game
 */
function belongsTo(rel, game) {
  const parts = rel.split(sep);
  const name = basename(rel).replace(/\.[cm]?[jt]s$/, "");
  return parts.slice(0, -1).includes(game) || name === game || name.startsWith(`${game}-`);
}

/** @type {import("eslint").Rule.RuleModule} */
export const genericAgents = {
  meta: {
    type: "problem",
    docs: { description: "generic agents/ files import no game: game knowledge sits in files named for the game" },
    schema: [{ type: "object", properties: { root: { type: "string" } }, additionalProperties: false }],
    messages: {
      gameImport:
        "agents/ is game-agnostic: {{file}} may not import engine/{{game}}/ (put {{game}}'s knowledge in a file named {{game}}-*.ts and reach it through agents/evaluators/index.ts)",
    },
  },
  create(context) {
    const root = context.options[0]?.root ?? context.cwd;
    const rel = relative(join(root, "agents"), context.filename);
    if (rel.startsWith("..") || rel === "") return {};
    const games = gameFolders(root);
    /** @param {import("estree").Node | null | undefined} source */
    const check = (source) => {
      if (!source || source.type !== "Literal" || typeof source.value !== "string" || !source.value.startsWith(".")) return;
      const target = relative(join(root, "engine"), resolve(dirname(context.filename), source.value));
      const game = target.split(sep)[0] ?? "";
      if (target.startsWith("..") || !games.has(game) || belongsTo(rel, game)) return;
      context.report({ node: source, messageId: "gameImport", data: { file: `agents/${rel.split(sep).join("/")}`, game } });
    };
    return importSources(check);
  },
};

// @ts-check
/**
 * Declared boundaries inside a layer: a folder that reaches a sibling folder only through the
 * files it declares as the port between them. env/live (tables people play at) is hosted by
 * env/server, but never reaches into it: what a table needs from its host (running an agent's
 * decision on the worker pool, answering a refused request with an HTTP error) is declared in
 * env/live/ports.ts, which env/server implements. This rule refuses any other import of the
 * sibling from the folder, so that the server can change behind the port.
 */
import { dirname, relative, resolve, sep } from "node:path";
import { importSources } from "./import-sources.js";

/**
 * The boundaries: files under `from` may import files under `to` only when listed in `through`
 * (paths relative to the repository root; empty: not at all). `port` is named in the message.
 */
export const PORTS = [{ from: "env/live", to: "env/server", through: /** @type {string[]} */ ([]), port: "env/live/ports.ts" }];

/** @param {string} path a path relative to the root, with the platform's separators */
const posix = (path) => path.split(sep).join("/");

/** @param {string} path @param {string} folder whether `path` (posix, relative to the root) is inside `folder` */
const inside = (path, folder) => path === folder || path.startsWith(`${folder}/`);

/** @type {import("eslint").Rule.RuleModule} */
export const ports = {
  meta: {
    type: "problem",
    docs: { description: "a folder reaches a sibling folder only through its declared port" },
    schema: [{ type: "object", properties: { root: { type: "string" } }, additionalProperties: false }],
    messages: {
      throughPort:
        "{{from}}/ reaches {{to}}/ only through its port {{port}}, which {{to}}/ implements: {{file}} may not import {{target}} (declare what it needs in {{port}})",
    },
  },
  create(context) {
    const root = context.options[0]?.root ?? context.cwd;
    const file = posix(relative(root, context.filename));
    const boundaries = PORTS.filter((b) => inside(file, b.from));
    if (boundaries.length === 0) return {};
    /** @param {import("estree").Node | null | undefined} source */
    const check = (source) => {
      if (!source || source.type !== "Literal" || typeof source.value !== "string" || !source.value.startsWith(".")) return;
      const target = posix(relative(root, resolve(dirname(context.filename), source.value)));
      for (const b of boundaries) {
        if (inside(target, b.to) && !b.through.includes(target)) {
          context.report({ node: source, messageId: "throughPort", data: { from: b.from, to: b.to, port: b.port, file, target } });
        }
      }
    };
    return importSources(check);
  },
};

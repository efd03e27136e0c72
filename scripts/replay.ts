/**
 * npm run replay -- <record.json> [--expect HASH] [--verify --data-dir DIR] [--events VIEWER]
 * Re-runs a GameRecord in this process and prints its final state hash. Exits non-zero on an
 * illegal decision, a hash mismatch (against the record's own hashes, or --expect), or a bad file.
 * --verify: the record is a live table's export (GET /v1/tables/:id/record); its signed log is
 * checked with the key in DIR (the server's --data-dir). Exit 0: a verified finished game (its end
 * marker signs its length, returns and final hash). Exit 1: the record does not verify (an edited,
 * dropped or reordered entry, a bad end marker, a file cut short or one that repeats a key...). Exit 3: every entry verifies but the log has no
 * end marker ("incomplete at N": cut short, or exported before end markers were signed). Exit 4:
 * the record verifies, but it carries a signed recovery link: a restart found the table's journal
 * had lost acknowledged decisions (or could not tell) and play went on from there.
 * --events VIEWER: prints what each decision did as VIEWER reads it (owner: every face, as the
 * record's holder may; spectator; or a seat number), recomputed from the decisions.
 */
import { readFileSync, statSync } from "node:fs";
import { parseJsonText, parseRecord, projectEvents, replay, unwrap, type GameRecord, type Viewer } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { readKey } from "../env/live/signing.ts";
import { checkSignedRecordText, describeRecovery } from "../env/live/verify.ts";
import { main, parseCli, UsageError, printUsage } from "./cli.ts";

const USAGE = "npm run replay -- <record.json> [--expect HASH] [--verify [--data-dir DIR]] [--events owner|spectator|SEAT]";
const MAX_BYTES = 256 * 1024 * 1024;
/** --verify: the signed entries hold but nothing signs the log's end (not a verified finished game). */
const EXIT_INCOMPLETE = 3;
/** --verify: genuine and finished, but a restart lost acknowledged decisions (a signed recovery link). */
const EXIT_RECOVERED = 4;

main(() => {
  const { values, positionals } = parseCli(USAGE, {
    expect: { type: "string" },
    verify: { type: "boolean" },
    "data-dir": { type: "string" },
    events: { type: "string" },
  });
  if (values.help) return printUsage(USAGE);
  if (positionals.length !== 1) throw new UsageError(`name one record file\nusage: ${USAGE}`);
  const path = positionals[0]!;
  let text: string;
  try {
    if (statSync(path).size > MAX_BYTES) throw new Error(`${path} is larger than ${MAX_BYTES} bytes`);
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
  if (values.verify) {
    const dir = values["data-dir"] ?? process.env.CARDGYM_DATA_DIR ?? "cardgym-data";
    const checked = checkSignedRecordText(registry, readKey(dir), text);
    if (checked.status === "failed") {
      console.error(`error: verify_failed: ${path}: ${checked.reason}`);
      return 1;
    }
    if (checked.status === "incomplete") {
      console.error(`error: incomplete: ${path}: signed log incomplete at ${checked.at}: ${checked.reason}`);
      return EXIT_INCOMPLETE;
    }
    if (checked.recoveries.length > 0) {
      for (const r of checked.recoveries) console.error(`error: recovered: ${path}: verified, but ${describeRecovery(r)}`);
      return EXIT_RECOVERED;
    }
    console.log(`signed log verified with the key in ${dir}: a finished game of ${checked.decisions} decisions`);
  }
  let doc: unknown;
  try {
    doc = parseJsonText(text);
  } catch (e) {
    throw new Error(`${path} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  const record = parseRecord(doc);
  if (!record.ok) throw new Error(`${path}: ${record.error.message}`);
  const viewer = values.events === undefined ? null : viewerArg(values.events);
  const out = unwrap(replay(registry, record.value));
  if (typeof viewer === "number") {
    // A seat the game does not have would read every event as a spectator does: refused instead.
    const seats = (unwrap(registry.get(record.value.game)).config(out.state) as { seats: number }).seats;
    if (viewer >= seats) throw new UsageError(`--events ${viewer}: this ${record.value.game} game has seats 0 to ${seats - 1}`);
  }
  if (viewer !== null) for (const line of eventLog(record.value, viewer)) console.log(line);
  console.log(`${record.value.game} v${record.value.version}, seed ${record.value.seed}: ${record.value.decisions.length} decisions replayed`);
  console.log(`final state hash ${out.finalHash}`);
  if (values.expect !== undefined && values.expect !== out.finalHash) {
    console.error(`error: hash_mismatch: expected ${values.expect}`);
    return 1;
  }
  return 0;
});

function viewerArg(text: string): Viewer | "owner" {
  if (text === "owner" || text === "spectator") return text;
  if (/^[0-9]{1,2}$/.test(text)) return Number(text);
  throw new UsageError(`--events takes owner, spectator or a seat number, got "${text}"`);
}

/** Every decision's events as `viewer` reads them, one line each (a record that replays: checked before). */
function eventLog(record: GameRecord, viewer: Viewer | "owner"): string[] {
  const game = unwrap(registry.get(record.game));
  let state = game.setup(unwrap(game.parseConfig(record.config)), record.seed);
  const lines: string[] = [];
  record.decisions.forEach((d, i) => {
    const out = game.apply(state, d);
    if (!out.ok) throw new Error(`decision ${i + 1}: ${out.error.message}`);
    const after = out.state;
    projectEvents(game.events(state, d, after), viewer).forEach((e, k) =>
      lines.push(k === 0 ? `#${String(i + 1).padStart(4)}  ${e.text}` : `         ${e.text}`),
    );
    state = after;
  });
  return lines;
}

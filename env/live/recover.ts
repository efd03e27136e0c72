/**
 * Reading a table back from its journal lines (docs/live.md, "Durability"): the header, the signed
 * entries (their chain and signatures verified), the seats joined and resigned, the end marker and
 * what earlier restarts found wrong.
 */
import { stateHash, type AnyGame } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import type { FacilitatorName, JournalIntegrity, LogHeader, SignedEnd, SignedEntry } from "./protocol.ts";
import { verifyChain } from "./signing.ts";
import type { LogItem, ResolvedDeadlines, TableSetup } from "./table-common.ts";

/** A journal read and its chain verified: everything a table is rebuilt from. */
export interface JournalContent {
  readonly setup: TableSetup;
  readonly createdAt: number;
  readonly tokens: Record<string, string>;
  readonly joins: readonly { seat: number; tokenHash: string }[];
  readonly resigned: readonly number[];
  readonly entries: readonly { entry: SignedEntry; decision: unknown }[];
  readonly endLine: { end?: SignedEnd } | null;
  readonly integrity: readonly JournalIntegrity[];
}

/** Reads a journal's lines; throws a message when it does not start with a header or its chain is not this server's. */
export function readJournalContent(
  lines: readonly unknown[],
  resolve: (header: LogHeader) => { game: AnyGame; adapter: GameAdapter },
  key: Buffer,
): JournalContent {
  const first = lines[0] as
    | {
        t: string;
        header: LogHeader;
        headerHash: string;
        headerMac: string;
        facilitator: FacilitatorName;
        deadlines: ResolvedDeadlines;
        spectators: boolean;
        tokens: Record<string, string>;
      }
    | undefined;
  if (!first || first.t !== "header") throw new Error("the journal does not start with a header");
  const { game, adapter } = resolve(first.header);
  const entries: { entry: SignedEntry; decision: unknown }[] = [];
  const joins: { seat: number; tokenHash: string }[] = [];
  const resigned: number[] = [];
  let endLine: { end?: SignedEnd } | null = null;
  const integrity: JournalIntegrity[] = [];
  for (const line of lines.slice(1)) {
    const l = line as { t: string; entry?: SignedEntry; decision?: unknown; seat?: number; tokenHash?: string; end?: SignedEnd; found?: JournalIntegrity };
    if (l.t === "end") endLine = l;
    else if (l.t === "integrity" && l.found) integrity.push(l.found);
    else if (l.t === "entry" && l.entry) {
      // Journals written before events were recomputed on recovery also carry a label: dropped.
      const { label: _label, ...entry } = l.entry as SignedEntry & { label?: unknown };
      entries.push({ entry, decision: l.decision });
    } else if (l.t === "join" && typeof l.seat === "number" && typeof l.tokenHash === "string") joins.push({ seat: l.seat, tokenHash: l.tokenHash });
    else if (l.t === "resign" && typeof l.seat === "number") resigned.push(l.seat);
  }
  const bad = verifyChain(key, first.header, first.headerHash, first.headerMac, entries);
  if (bad) throw new Error(bad);
  const setup: TableSetup = {
    id: first.header.table,
    game,
    adapter,
    config: first.header.config as TableSetup["config"],
    seed: first.header.seed,
    seats: first.header.seats,
    facilitator: first.facilitator,
    deadlines: first.deadlines,
    spectators: first.spectators,
  };
  return { setup, createdAt: first.header.createdAt, tokens: first.tokens, joins, resigned, entries, endLine, integrity };
}

/** Replays the journaled decisions from `state`, checking each state hash; returns the items and the final state. */
export function replayEntries(game: AnyGame, state: unknown, entries: JournalContent["entries"]): { items: LogItem[]; state: unknown } {
  const items: LogItem[] = [];
  for (const { entry, decision } of entries) {
    const out = game.apply(state, decision);
    if (!out.ok) throw new Error(`entry ${entry.seq} does not apply: ${out.error.message}`);
    if (stateHash(out.state) !== entry.stateHash) throw new Error(`entry ${entry.seq}: state hash differs from the journal's`);
    items.push({ entry, decision, events: game.events(state, decision, out.state) });
    state = out.state;
  }
  return { items, state };
}

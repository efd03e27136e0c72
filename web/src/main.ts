import { claimSeat, tokens } from "./api.ts";
import { h, mount } from "./dom.ts";
import { lobbyScreen, prefillOf } from "./lobby.ts";
import { replayScreen } from "./replay.ts";
import { tableScreen } from "./table.ts";

/**
 * The browser client's router (docs/web.md). Routes live in the URL fragment:
 *   #/[?game=G&seats=..]        lobby (a New table link prefills the form)
 *   #/play/<table>/<seat>?token=T  a seat (the token is kept in localStorage, so a reload reconnects)
 *   #/watch/<table>             spectate
 *   #/replay/<table> | #/replay a finished table's record, or a GameRecord file
 */
const root = document.getElementById("app");
if (root === null) throw new Error("cardgym: the page has no #app element to render into");
const app: HTMLElement = root;
let cleanup: (() => void) | null = null;
/** Seats re-keyed from an invitation link in this page, by "table/seat". */
const claimed = new Map<string, string>();

function route(): void {
  cleanup?.();
  cleanup = null;
  const [path = "", query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  const [page, table, seatText] = parts;
  window.scrollTo(0, 0);
  if (page === "play" && table && seatText !== undefined && /^[0-9]{1,2}$/.test(seatText)) {
    const seat = Number(seatText);
    const given = params.get("token");
    if (given) {
      // Keep the secret out of the address bar (and the history); the seat is re-keyed, then shown.
      history.replaceState(null, "", `#/play/${encodeURIComponent(table)}/${seat}`);
      mount(app, h("p", null, "Taking your seat…"));
      void claimSeat(table, seat, given).then((token) => {
        claimed.set(`${table}/${seat}`, token);
        route();
      });
      return;
    }
    // This browser's token (or, where it keeps none, as in private mode, the one just claimed).
    const token = tokens.get(table, seat) ?? claimed.get(`${table}/${seat}`) ?? null;
    if (!token) {
      mount(
        app,
        h(
          "p",
          { class: "err" },
          `No token for seat ${seat} of table ${table} in this browser: open the seat's link, or `,
          h("a", { href: "#/" }, "join from the lobby"),
          ".",
        ),
      );
      return;
    }
    cleanup = tableScreen(app, { table, seat, token });
  } else if (page === "watch" && table) {
    cleanup = tableScreen(app, { table, seat: null, token: null });
  } else if (page === "replay") {
    cleanup = replayScreen(app, table ?? null);
  } else {
    cleanup = lobbyScreen(app, params.has("game") ? prefillOf(params) : null);
  }
}

window.addEventListener("hashchange", route);
route();

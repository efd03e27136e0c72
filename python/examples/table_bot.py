"""Play one seat of a live table with a bot of your own (docs/live.md).

    python python/examples/table_bot.py                       # a sevens table vs two random agents
    python python/examples/table_bot.py --url http://127.0.0.1:8787 --table t-... --seat 1 --token T

With no --table, it starts (or reuses) the package's embedded server, creates a sevens table with
this bot on seat 0 against two `random` agents and plays it to the end. Given --table/--seat/
--token (a seat handed out by POST /v1/tables), it plays that seat of a running server's table,
against people or agents.
"""

from __future__ import annotations

import argparse
import random
import re
from typing import Any, Dict, List, Optional

import cardgym

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}


def edge_first(frame: Dict[str, Any]) -> int:
    """A small sevens heuristic: play the card furthest from 7 (it unblocks nothing for others
    and sheds the hardest cards early); otherwise the first decision. Works for any game."""
    best, score = frame["decisions"][0]["id"], -1
    for d in frame["decisions"]:
        m = re.search(r"plays (10|[2-9AJQK])", d["label"])
        if m:
            rank = RANKS.get(m.group(1)) or int(m.group(1))
            if abs(rank - 7) > score:
                best, score = d["id"], abs(rank - 7)
    return best


def main(argv: Optional[List[str]] = None) -> Dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", help="server URL (default: the embedded server, or CARDGYM_URL)")
    p.add_argument("--table")
    p.add_argument("--seat", type=int, default=0)
    p.add_argument("--token")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    client = cardgym.Client(args.url) if args.url is None else None
    url = args.url or client.url  # type: ignore[union-attr]
    try:
        if args.table is None:
            made = cardgym.Table.create(url, "sevens", ["human", "random", "random"], seed=args.seed)
            table_id, seat, token = made["table"], 0, made["tokens"]["0"]
        else:
            if args.token is None:
                p.error("--table needs --seat and --token")
            table_id, seat, token = args.table, args.seat, args.token
        rng = random.Random(args.seed)
        with cardgym.Table(url, table_id, seat, token) as table:
            final = table.play(lambda f: edge_first(f) if rng.random() < 0.9 else rng.choice(f["decisions"])["id"])
        print(f"table {table_id}: game over after {final['seq']} decisions; returns {final['returns']}")
        return final
    except (cardgym.ServerError, cardgym.ServerUnavailable) as e:
        # No such table, a wrong token, a server that is not there: the server's sentence, not a traceback.
        p.exit(2, f"table_bot.py: error: {e}\n")
    finally:
        if client is not None:
            client.close()


if __name__ == "__main__":
    main()

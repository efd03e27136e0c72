"""cardgym.Table: a Python bot joins a seat of a live table on the real server (docs/live.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import cardgym


def test_table_plays_a_seat_to_the_end_and_sees_only_its_own_hand(client: cardgym.Client) -> None:
    made = cardgym.Table.create(client.url, "sevens", ["human", "random", "random"], seed=4)
    assert set(made["tokens"]) == {"0"}
    frames = []
    with cardgym.Table(client.url, made["table"], 0, made["tokens"]["0"]) as table:
        final = table.play(lambda f: f["decisions"][-1]["id"], on_frame=frames.append)
    assert final["status"] == "finished"
    assert len(final["returns"]) == 3
    assert frames and all(f["seat"] == 0 and f["view"]["viewer"] == 0 for f in frames)
    # Every frame asked for a decision only on seat 0's turn.
    assert all(f["actor"] == 0 for f in frames if f["decisions"])


def test_stale_answer_is_refused(client: cardgym.Client) -> None:
    made = cardgym.Table.create(client.url, "sevens", ["human", "human", "human"], seed=2)
    tables = [cardgym.Table(client.url, made["table"], s, made["tokens"][str(s)]) for s in range(3)]
    try:
        frames = [t.frame() for t in tables]
        mover = next(f for f in frames if f["decisions"])
        t = tables[mover["seat"]]
        ack = t.answer(mover, mover["decisions"][0]["id"])
        assert ack["seq"] == mover["seq"] + 1
        with pytest.raises(cardgym.ServerError) as err:
            t.answer(mover, mover["decisions"][0]["id"])
        assert err.value.code == "stale_answer"
        with pytest.raises(cardgym.ServerError) as bad:
            cardgym.Table(client.url, made["table"], 0, "wrong-token").frame()
        assert bad.value.code == "unauthorized"
    finally:
        for t in tables:
            t.close()


def test_resign_hands_the_seat_to_the_takeover_agent_and_retires_the_token(client: cardgym.Client) -> None:
    made = cardgym.Table.create(client.url, "sevens", ["human", "human", "random"], seed=6)
    keeper = cardgym.Table(client.url, made["table"], 0, made["tokens"]["0"])
    quitter = cardgym.Table(client.url, made["table"], 1, made["tokens"]["1"])
    try:
        assert quitter.resign() == {"resigned": True, "seat": 1, "outcome": "takeover"}
        with pytest.raises(cardgym.ServerError) as err:
            quitter.frame()
        assert err.value.code == "seat_resigned"
        final = keeper.play(lambda f: f["decisions"][0]["id"])
        assert final["status"] == "finished"
        assert final["seats"][1]["status"] == "resigned"
    finally:
        keeper.close()
        quitter.close()


def test_example_bot_plays_a_table() -> None:
    path = Path(__file__).resolve().parents[1] / "examples" / "table_bot.py"
    spec = importlib.util.spec_from_file_location("table_bot", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    final = mod.main(["--seed", "3"])
    assert final["status"] == "finished"


def test_a_seat_its_holder_left_is_taken_by_another_person(client: cardgym.Client) -> None:
    made = cardgym.Table.create(client.url, "sevens", ["human", "human", "random"], seed=6, facilitator="training")
    leaver = cardgym.Table(client.url, made["table"], 1, made["tokens"]["1"])
    with pytest.raises(cardgym.ServerError) as taken:
        cardgym.Table.join(client.url, made["table"], 1)
    assert taken.value.code == "seat_taken"
    leaver.leave()
    newcomer = cardgym.Table.join(client.url, made["table"], 1)
    agent_seat = cardgym.Table.join(client.url, made["table"], 2)
    try:
        assert newcomer.frame()["seats"][1]["held"] is True
        assert agent_seat.frame()["seats"][2]["kind"] == "human"
        with pytest.raises(cardgym.ServerError) as err:
            leaver.frame()
        assert err.value.code == "unauthorized"
    finally:
        for t in (leaver, newcomer, agent_seat):
            t.close()


def test_an_entry_window_refuses_a_seat_it_closed_empty(client: cardgym.Client) -> None:
    made = cardgym.Table.create(client.url, "sevens", ["human", "open", "open"], seed=3, deadlines={"entryMs": 1})
    table = cardgym.Table(client.url, made["table"], 0, made["tokens"]["0"])
    try:
        frame = table.wait_turn(timeout=60)
        assert "startsAt" not in frame
        with pytest.raises(cardgym.ServerError) as err:
            cardgym.Table.join(client.url, made["table"], 2)
        assert err.value.code == "window_closed"
    finally:
        table.close()

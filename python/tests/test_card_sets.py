"""User card sets from Python: a session config names a card-set file (``cardSetFile``) that the
server reads from its card-set directory; here a private server serves test/fixtures/cards, whose
set is not shipped with the engine."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import masked_choice

import cardgym
from cardgym.server import EmbeddedServer


@pytest.fixture(scope="module")
def card_client():
    server = EmbeddedServer(extra_args=["--card-set-dir", "test/fixtures/cards"])
    client = cardgym.Client(url=server.url)
    try:
        yield client
    finally:
        client.close()
        server.stop()


def test_a_named_card_set_file_plays_its_user_book(card_client):
    env = cardgym.make("dcg", config={"cardSetFile": "storm-set.json", "books": ["storm", "vanguard"]}, seed=3, client=card_client)
    try:
        assert [c["id"] for c in env.session.config["cardSet"]["cards"]] == ["storm-caller", "tide-wall"]
        rng = np.random.default_rng(3)
        obs, _ = env.reset()
        for _ in range(5000):
            obs, _, terminated, truncated, _ = env.step(masked_choice(rng, obs["action_mask"]))
            if terminated or truncated:
                break
        assert terminated or truncated
    finally:
        env.close()


def test_a_card_set_file_outside_the_directory_is_refused(card_client):
    with pytest.raises(cardgym.CardgymError, match="outside the card-set directory"):
        cardgym.make("dcg", config={"cardSetFile": "../../engine/dcg/cards/books.json"}, client=card_client)

"""The mail a complete 3-player Koryo game costs each player, by the judge's default (issue 18:
under 1 MB per player): players who only read their mail and answer it."""

from __future__ import annotations

import json
import os
import re

from judge_kit import attachment
from test_judge_mail_game import PLAYERS, play_turn, serve_once, setup_game

LIMIT = 1024 * 1024


def play_whole_game(cli, po) -> dict[str, dict[str, int]]:
    """Play to the end answering every mail that asks for orders; the mails and bytes per player."""
    volume = {p: {"mails": 0, "bytes": 0} for p in PLAYERS}
    for _ in range(300):
        assert serve_once(cli, po).code == 0
        over = False
        for p in PLAYERS:
            box = po.box(f"{p}@example.org") / "new"
            sizes = {path.name: path.stat().st_size for path in box.iterdir()}
            for msg in po.messages(f"{p}@example.org"):
                volume[p]["mails"] += 1
                subject = str(msg["Subject"])
                if subject.endswith("game over"):
                    over = True
                elif "(re: " not in subject and re.search(r"\byour (\w+ )?turn\b", subject):
                    assert attachment(msg) is not None, subject
                    play_turn(cli, po, p, msg)
            volume[p]["bytes"] += sum(sizes.values())
        if over:
            return volume
    raise AssertionError("the game did not end")


def test_a_whole_game_by_mail_costs_each_player_under_a_megabyte(cli, tmp_path):
    po = setup_game(cli, tmp_path)
    volume = play_whole_game(cli, po)
    figure = os.environ.get("KORYO_PBM_VOLUME_OUT")
    if figure:
        with open(figure, "w") as f:
            json.dump(volume, f)
    for p, v in volume.items():
        assert v["bytes"] < LIMIT, (p, volume)

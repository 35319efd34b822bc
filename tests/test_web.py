"""The web page's server (``cardzoo serve``), through Starlette's TestClient: every route, every
bad request refused with a 4xx and a JSON message (the server going on), the person's view that
shows nothing of the other seats, and replays that never read outside their folder."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the web extra)")

from PIL import Image  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cardzoo import cli  # noqa: E402
from cardzoo.agents.policy import PRETRAINED  # noqa: E402
from cardzoo.cli.serve import _check_port_free  # noqa: E402
from cardzoo.envs import GAMES, load_game  # noqa: E402
from cardzoo.envs.helpers import game_rng_from_seed  # noqa: E402
from cardzoo.play import play  # noqa: E402
from cardzoo.web import sessions as web_sessions  # noqa: E402
from cardzoo.web.app import MAX_BODY_BYTES, create_app  # noqa: E402

LOCAL = "http://127.0.0.1:8000"
NWI = {"game": "nobody_wants_it", "lineup": ["you", "nwi_dodger", "random"], "seed": 7}
WATCH = {"game": "nobody_wants_it", "lineup": ["nwi_dodger", "random", "random"], "seed": 7}
#: the header every POST must carry (the body may be empty where the route allows it)
JSON_TYPE = {"Content-Type": "application/json"}


@pytest.fixture
def replay_folder(tmp_path):
    folder = tmp_path / "replays"
    (folder / "run").mkdir(parents=True)
    (folder / "game_0001.gif").write_bytes(b"GIF89a one")
    (folder / "run" / "game_0002.gif").write_bytes(b"GIF89a two")
    (folder / "notes.txt").write_text("not a replay")
    (folder / "folder.gif").mkdir()
    outside = tmp_path / "secret.gif"
    outside.write_bytes(b"GIF89a secret")
    (folder / "link_out.gif").symlink_to(outside)
    (folder / "link_dir").symlink_to(tmp_path, target_is_directory=True)
    return folder


@pytest.fixture
def client(replay_folder):
    with TestClient(create_app(replay_folder), base_url=LOCAL) as test_client:
        yield test_client


def refused(response, status: int, message: str) -> None:
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


def png_size(response) -> tuple[int, int]:
    assert response.headers["content-type"] == "image/png"
    with Image.open(io.BytesIO(response.content)) as image:
        return image.size


# --- the page ------------------------------------------------------------------------------------


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/app.js"' in page.text and 'id="moves"' in page.text
    assert "async function startGame" in client.get("/app.js").text
    assert client.get("/style.css").headers["content-type"].startswith("text/css")


def test_games_lists_every_game_with_its_agents(client):
    data = client.get("/api/games").json()
    assert [game["name"] for game in data["games"]] == list(GAMES)
    nwi = data["games"][1]
    assert nwi["agents"][:5] == ["random", "hand_shedder", "nwi_dodger", "pimc", "ismcts"]
    assert (nwi["min_players"], nwi["max_players"], nwi["default_players"]) == (2, 7, 4)
    assert nwi["best_agent"] == "nwi_dodger" and data["replays"] is True


# --- watching ------------------------------------------------------------------------------------


def test_watching_moves_one_step_at_a_time_to_the_result(client):
    game = client.post("/api/sessions", json=WATCH)
    assert game.status_code == 201
    data = game.json()
    assert (data["steps"], data["human_seat"], data["views"]) == (0, None, ["all", "0", "1", "2"])
    one = client.post(f"/api/sessions/{data['id']}/step", headers=JSON_TYPE).json()
    assert one["steps"] == 1 and one["last_move"].startswith("player_0: ")
    end = client.post(f"/api/sessions/{data['id']}/step", json={"moves": 10000}).json()
    assert end["over"] and end["to_move"] is None and end["legal_moves"] == []
    assert end["result"]["text"].startswith("Scores: player_0 (nwi_dodger) ")
    assert sum(end["result"]["winners"]) >= 1
    assert client.get(f"/api/sessions/{data['id']}").json() == end
    refused(client.post(f"/api/sessions/{data['id']}/step", json={}), 409, "the game is over")


def test_pictures_from_every_seat_and_in_full(client):
    data = client.post("/api/sessions", json=WATCH).json()
    game = load_game("nobody_wants_it", num_players=3)
    expected = game.picture(game.new_state(game_rng_from_seed(7)), 1)
    seat = client.get(f"/api/sessions/{data['id']}/picture.png", params={"view": "1"})
    assert png_size(seat) == (expected.shape[1], expected.shape[0])
    with Image.open(io.BytesIO(seat.content)) as image:
        np.testing.assert_array_equal(np.asarray(image.convert("RGB")), expected)
    full = client.get(f"/api/sessions/{data['id']}/picture.png")  # view=all by default
    assert png_size(full) == png_size(seat) and full.content != seat.content


# --- playing a seat ------------------------------------------------------------------------------


def play_first_legal_moves(client, request) -> tuple[dict, list[int]]:
    data = client.post("/api/sessions", json=request).json()
    moves = []
    while not data["over"]:
        assert data["your_turn"] and data["views"] == ["0"]
        moves.append(data["legal_moves"][0]["action"])
        data = client.post(f"/api/sessions/{data['id']}/act", json={"action": moves[-1]}).json()
    return data, moves


def test_playing_a_seat_is_the_game_terminal_play_plays(client):
    """The same seed, opponents and moves give the same game as ``cardzoo play``."""
    end, moves = play_first_legal_moves(client, NWI)
    typed = io.StringIO("".join(f"{move}\n" for move in moves))
    terminal = play("nobody_wants_it", ["nwi_dodger", "random"], seed=7, input_stream=typed,
                    output_stream=io.StringIO())  # fmt: skip
    assert end["result"]["scores"] == terminal.scores
    assert end["result"]["winners"] == terminal.winners
    verdict = "You won!" if terminal.won else "You lost."
    assert end["result"]["text"].endswith(verdict)
    assert end["views"] == ["all", "0", "1", "2"]  # everything may be seen at the end


def test_a_shared_win_is_worded_as_terminal_play_words_it(client):
    """Believe It or Not, seed 3, the person's first legal moves: seats 0 and 1 share the win."""
    request = {"game": "believe_it_or_not", "lineup": ["you", "random", "random"], "seed": 3}
    end, moves = play_first_legal_moves(client, request)
    assert end["result"]["winners"] == [True, True, False]
    typed, shown = io.StringIO("".join(f"{move}\n" for move in moves)), io.StringIO()
    play("believe_it_or_not", ["random", "random"], seed=3, input_stream=typed,
         output_stream=shown)  # fmt: skip
    assert shown.getvalue().endswith("You share the win.\n")
    assert end["result"]["text"].endswith("\nYou share the win.")


def test_legal_moves_are_named_by_the_engine(client):
    data = client.post("/api/sessions", json=NWI).json()
    game = load_game("nobody_wants_it", num_players=3)
    state = game.new_state(game_rng_from_seed(7))
    legal = np.flatnonzero(game.legal_mask(state, 0))
    assert data["legal_moves"] == [
        {"action": int(a), "name": game.action_name(int(a))} for a in legal
    ]


def test_a_player_sees_only_their_seat_until_the_end(client):
    data = client.post("/api/sessions", json=NWI).json()
    url = f"/api/sessions/{data['id']}/picture.png"
    assert client.get(url, params={"view": "0"}).status_code == 200
    refused(client.get(url, params={"view": "all"}), 403, "you play seat 0")
    refused(client.get(url, params={"view": "1"}), 403, "shown when the game is over")
    after = client.post(f"/api/sessions/{data['id']}/act", json={"action": 8}).json()
    assert after["last_move"] is None  # the opponents moved last: their moves are not named


# --- bad requests --------------------------------------------------------------------------------

BAD_STARTS = [
    ({"game": "chess", "lineup": ["you", "random"]}, "unknown game 'chess'"),
    (
        {"game": "foxy_v0", "lineup": ["you", "random"]},
        "games are named without their version here: 'foxy'",
    ),
    ({"game": "nobody_wants_it", "lineup": ["you", "grandmaster"]}, "agent 'grandmaster'"),
    ({"game": "nobody_wants_it", "lineup": ["you"]}, "1 seats, but nobody_wants_it seats 2..7"),
    ({"game": "nobody_wants_it", "lineup": ["you", "you"]}, "a person plays one seat"),
    ({"game": "nobody_wants_it", "lineup": "you,random"}, "lineup must be a list"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": -1}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": True}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": "abc"}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": "-1"}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": " 7"}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": "7.0"}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": ""}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": "\uff17"}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": str(2**63)}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": 2**63}, "seed must be"),
    (
        {"game": "nobody_wants_it", "lineup": ["you", "pimc:seconds=2.5"]},
        "agent 'pimc:seconds=2.5': at most seconds=2 per move on the web page, got seconds=2.5",
    ),
    (
        {"game": "nobody_wants_it", "lineup": ["you", "pimc:seconds=1e300"]},
        "seconds must be a finite number > 0 and <= 3600 (seconds per move), got 1e+300",
    ),
    (
        {"game": "nobody_wants_it", "lineup": ["you", "ismcts:simulations=5001"]},
        "at most simulations=5000 per move on the web page, got simulations=5001",
    ),
    (
        {"game": "nobody_wants_it", "lineup": ["you", "pimc:simulations=1000000000000:seconds=1"]},
        "simulations=1,000,000,000,000 is out of range; allowed 1..10,000,000",
    ),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "x": 1}, "unknown field(s) ['x']"),
    ({"game": "nobody_wants_it", "lineup": ["you", "ppo:/etc"]}, "is not offered by this"),
    ({"game": "nobody_wants_it", "lineup": ["you", "rllib:../runs"]}, "is not offered by this"),
]


@pytest.mark.parametrize("request_body, message", BAD_STARTS)
def test_bad_new_games_are_refused(client, request_body, message):
    refused(client.post("/api/sessions", json=request_body), 400, message)
    assert client.get("/api/games").status_code == 200  # the server goes on


def test_a_seed_may_be_a_string_of_digits_read_exactly(client):
    as_number = client.post("/api/sessions", json=WATCH).json()
    as_digits = client.post("/api/sessions", json={**WATCH, "seed": "0007"}).json()
    assert as_digits["seed"] == 7
    assert {**as_digits, "id": None} == {**as_number, "id": None}
    large = client.post("/api/sessions", json={**WATCH, "seed": "9007199254740993"})
    assert large.status_code == 201 and large.json()["seed"] == 2**53 + 1  # not rounded
    largest = client.post("/api/sessions", json={**WATCH, "seed": str(2**63 - 1)})
    assert largest.status_code == 201 and largest.json()["seed"] == 2**63 - 1


def test_search_agents_within_the_web_limits_are_seated(client):
    lineup = ["you", "pimc:seconds=2", "ismcts:simulations=5000"]
    request = {"game": "nobody_wants_it", "lineup": lineup, "seed": 1}
    assert client.post("/api/sessions", json=request).status_code == 201


def test_bodies_that_are_not_json_objects_are_refused(client):
    for body in [b"{not json", b"\xff\xfe", b""]:
        response = client.post("/api/sessions", content=body, headers=JSON_TYPE)
        refused(response, 400, "must be a JSON object")
    refused(client.post("/api/sessions", json=[1, 2]), 400, "must be a JSON object")


@pytest.mark.parametrize(
    "body, message",
    [
        (b'{"moves": ' + b"[" * 20_000 + b"]" * 20_000 + b"}", "nested too deeply"),
        (b"[" * 20_000, "nested too deeply"),
        (b'{"moves": ' + b"9" * 5000 + b"}", "a number in the body has more than 4300 digits"),
    ],
)
@pytest.mark.parametrize("route", ["/api/sessions", "step", "act"])
def test_bodies_json_cannot_hold_are_refused(client, body, message, route):
    game_id = client.post("/api/sessions", json=NWI).json()["id"]
    url = route if route.startswith("/") else f"/api/sessions/{game_id}/{route}"
    refused(client.post(url, content=body, headers=JSON_TYPE), 400, message)
    assert client.get("/api/games").status_code == 200  # the server goes on


def body_in_chunks(body: bytes):
    """``body`` sent in pieces without a Content-Length (chunked), as a client that does not
    say how long its body is sends it."""
    for at in range(0, len(body), 4096):
        yield body[at : at + 4096]


@pytest.mark.parametrize("declared", [True, False])
@pytest.mark.parametrize("route", ["/api/sessions", "step", "act"])
def test_a_body_longer_than_the_limit_is_refused_with_413(client, route, declared):
    game_id = client.post("/api/sessions", json=NWI).json()["id"]
    url = route if route.startswith("/") else f"/api/sessions/{game_id}/{route}"
    body = b'{"moves": 1, "pad": "' + b" " * MAX_BODY_BYTES + b'"}'
    content = body if declared else body_in_chunks(body)
    refused(client.post(url, content=content, headers=JSON_TYPE), 413, "longer than 65,536 bytes")
    at_the_limit = b'{"moves": 1}' + b" " * (MAX_BODY_BYTES - 12)
    answer = client.post(url, content=body_in_chunks(at_the_limit), headers=JSON_TYPE)
    assert answer.status_code != 413
    assert client.get("/api/games").status_code == 200  # the server goes on


def test_unknown_fields_of_a_move_are_refused(client):
    data = client.post("/api/sessions", json=NWI).json()
    action = data["legal_moves"][0]["action"]
    response = client.post(f"/api/sessions/{data['id']}/act", json={"action": action, "x": 1})
    refused(response, 400, "unknown field(s) ['x']; allowed: action")
    assert client.get(f"/api/sessions/{data['id']}").json() == data  # nothing changed


@pytest.mark.parametrize(
    "action, message",
    [
        ("the first illegal move", "is not allowed now"),
        (99, "there is no move 99: moves are numbered 0..15"),
        (-1, "there is no move -1"),
        ("4", "action must be an integer"),
        (1.0, "action must be an integer"),
        (True, "action must be an integer"),
        (None, "action must be an integer"),
    ],
)
def test_illegal_or_malformed_actions_are_refused(client, action, message):
    data = client.post("/api/sessions", json=NWI).json()
    if action == "the first illegal move":
        legal = [move["action"] for move in data["legal_moves"]]
        action = min(set(range(16)) - set(legal))
        name = load_game("nobody_wants_it", num_players=3).action_name(action)
        message = f"move {action} ({name}) is not allowed now"  # named as the engine names it
    response = client.post(f"/api/sessions/{data['id']}/act", json={"action": action})
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert client.get(f"/api/sessions/{data['id']}").json() == data  # nothing changed


def test_moves_out_of_turn_or_mode_are_refused(client):
    playing = client.post("/api/sessions", json=NWI).json()
    watching = client.post("/api/sessions", json=WATCH).json()
    refused(client.post(f"/api/sessions/{playing['id']}/step", json={}), 409, "it is your turn")
    refused(client.post(f"/api/sessions/{watching['id']}/act", json={"action": 0}), 409, "watched")
    refused(client.post(f"/api/sessions/{playing['id']}/act", json={}), 400, '{"action"')
    step = f"/api/sessions/{watching['id']}/step"
    refused(client.post(step, json={"moves": 0}), 400, "moves must be 1..10000")
    refused(client.post(step, json={"moves": "all"}), 400, "moves must be an integer")
    refused(client.post(step, json={"turns": 1}), 400, "unknown field(s) ['turns']")


def test_unknown_games_views_routes_and_methods_are_refused(client):
    refused(client.get("/api/sessions/g999"), 404, "no game 'g999'")
    refused(client.post("/api/sessions/g999/step", json={}), 404, "no game 'g999'")
    data = client.post("/api/sessions", json=WATCH).json()
    url = f"/api/sessions/{data['id']}/picture.png"
    refused(client.get(url, params={"view": "3"}), 400, "view must be 'all' or a seat 0..2")
    refused(client.get(url, params={"view": "../x"}), 400, "view must be")
    refused(client.get("/api/nothing"), 404, "Not Found")
    refused(client.get("/api/sessions"), 405, "Method Not Allowed")


@pytest.mark.parametrize("host", ["testserver", "evil.example:8000", "127.0.0.1.evil.example"])
def test_requests_for_another_host_are_refused(replay_folder, host):
    """A page elsewhere that points its own name at 127.0.0.1 (DNS rebinding) reads nothing."""
    with TestClient(create_app(replay_folder), base_url=f"http://{host}") as client:
        for url in ["/", "/api/games", "/api/replay?name=game_0001.gif"]:
            refused(client.get(url), 400, f"host {host!r} refused")
    with TestClient(create_app(replay_folder), base_url="http://localhost:8123") as client:
        assert client.get("/api/replay", params={"name": "game_0001.gif"}).status_code == 200


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1:9999", "http://localhost:8000"]
)
def test_moves_sent_from_another_origin_are_refused(client, origin):
    """Another site open in the same browser makes no move (the page's origin is
    http://127.0.0.1:8000 here: localhost is another origin)."""
    headers = {"Origin": origin}
    message = f"origin {origin!r} refused: only the page at http://127.0.0.1:8000/ may send moves"
    refused(client.post("/api/sessions", json=WATCH, headers=headers), 403, message)
    game_id = client.post("/api/sessions", json=WATCH).json()["id"]
    refused(client.post(f"/api/sessions/{game_id}/step", json={}, headers=headers), 403, "origin")
    assert client.get(f"/api/sessions/{game_id}").json()["steps"] == 0


def test_moves_from_the_page_itself_are_taken(client):
    headers = {"Origin": "http://127.0.0.1:8000"}
    assert client.post("/api/sessions", json=WATCH, headers=headers).status_code == 201


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_posts_that_are_not_json_are_refused(client, content_type):
    headers = {} if content_type is None else {"Content-Type": content_type}
    body = json.dumps(WATCH).encode()
    refused(client.post("/api/sessions", content=body, headers=headers), 415,
            "send the body as JSON with Content-Type: application/json")  # fmt: skip
    game_id = client.post("/api/sessions", json=WATCH).json()["id"]
    refused(client.post(f"/api/sessions/{game_id}/step", headers=headers), 415, "Content-Type")
    assert client.get(f"/api/sessions/{game_id}").json()["steps"] == 0
    typed = {"Content-Type": "application/json; charset=utf-8"}
    assert client.post("/api/sessions", content=body, headers=typed).status_code == 201


def test_other_requests_are_answered_while_an_agent_thinks(client, monkeypatch):
    """The agents' moves run off the event loop; two requests on one game take turns."""
    game_id = client.post("/api/sessions", json=WATCH).json()["id"]
    entered, release, thinking_now = [], threading.Event(), threading.Semaphore(1)
    real_action = web_sessions.agent_action

    def slow_action(game, state, agent):
        assert thinking_now.acquire(blocking=False), "two moves of one game at once"
        entered.append(time.monotonic())
        try:
            release.wait(timeout=10)
            return real_action(game, state, agent)
        finally:
            thinking_now.release()

    monkeypatch.setattr(web_sessions, "agent_action", slow_action)
    answers = []

    def step():
        answers.append(client.post(f"/api/sessions/{game_id}/step", json={"moves": 1}))

    steps = [threading.Thread(target=step) for _ in range(2)]
    try:
        for thread in steps:
            thread.start()
        deadline = time.monotonic() + 10
        while not entered and time.monotonic() < deadline:
            time.sleep(0.01)
        games = client.get("/api/games")  # answered while the agent thinks
        assert games.status_code == 200 and answers == [] and len(entered) == 1
    finally:
        release.set()
        for thread in steps:
            thread.join(timeout=30)
    assert sorted(answer.json()["steps"] for answer in answers) == [1, 2]
    assert len(entered) == 2


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_ctrl_c_stops_the_server_while_an_agent_thinks():
    """``cardzoo serve`` in its own process: a watched game of slow search agents (half a
    second a move) asked to play to the end, then SIGINT: the server stops within seconds."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/api/"
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "cardzoo", "serve", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def post(path, body, timeout=60):
        request = urllib.request.Request(url + path, json.dumps(body).encode(), JSON_TYPE)
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.stderr.read().decode()
            try:
                urllib.request.urlopen(url + "games", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "cardzoo serve did not answer"
                time.sleep(0.2)
        lineup = ["pimc:seconds=0.5"] * 3
        game = post("sessions", {"game": "nobody_wants_it", "lineup": lineup, "seed": 7})

        answers = []

        def play_to_the_end():
            try:
                answers.append(post(f"sessions/{game['id']}/step", {"moves": 10000}))
            except urllib.error.HTTPError as error:
                answers.append((error.code, json.loads(error.read())))

        playing = threading.Thread(target=play_to_the_end, daemon=True)
        playing.start()
        time.sleep(1.0)  # the agents think
        started = time.monotonic()
        server.send_signal(signal.SIGINT)
        server.wait(timeout=15)
        assert time.monotonic() - started < 10
        playing.join(timeout=5)
        assert answers == [(503, {"error": "the server is stopping"})]
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_the_oldest_games_are_forgotten_beyond_the_limit(client, monkeypatch):
    monkeypatch.setattr(web_sessions, "MAX_SESSIONS", 2)
    ids = [client.post("/api/sessions", json=WATCH).json()["id"] for _ in range(3)]
    refused(client.get(f"/api/sessions/{ids[0]}"), 404, "no game")
    assert client.get(f"/api/sessions/{ids[2]}").status_code == 200


def test_finished_games_are_dropped_first_then_the_least_recently_used(client, monkeypatch):
    monkeypatch.setattr(web_sessions, "MAX_SESSIONS", 2)
    playing = client.post("/api/sessions", json=NWI).json()["id"]  # the oldest, in progress
    finished = client.post("/api/sessions", json=WATCH).json()["id"]
    client.post(f"/api/sessions/{finished}/step", json={"moves": 10000})
    newer = client.post("/api/sessions", json=WATCH).json()["id"]
    dropped = f"no game {finished!r} any more: it was dropped to keep at most 2 games in memory"
    refused(client.get(f"/api/sessions/{finished}"), 404, dropped)
    assert client.get(f"/api/sessions/{playing}").status_code == 200  # now used after `newer`
    client.post("/api/sessions", json=WATCH)  # every game in progress: the least recently used
    refused(client.get(f"/api/sessions/{newer}"), 404, f"no game {newer!r} any more")
    assert client.get(f"/api/sessions/{playing}").status_code == 200
    refused(client.get("/api/sessions/never"), 404, "no game 'never' (it ended with the server")


def test_game_ids_are_unguessable(client):
    ids = [client.post("/api/sessions", json=WATCH).json()["id"] for _ in range(2)]
    assert ids[0] != ids[1]
    assert all(len(game_id) == 16 and re.fullmatch(r"[\w-]+", game_id) for game_id in ids)


def test_an_offered_saved_policy_that_cannot_be_read_is_listed_nowhere_and_refused(tmp_path):
    """(``cardzoo serve`` refuses it before serving; ``create_app`` lists it under no game.)"""
    offered = f"ppo:{tmp_path}"
    with TestClient(create_app(None, [offered]), base_url=LOCAL) as client:
        games = client.get("/api/games").json()["games"]
        assert all(offered not in game["agents"] for game in games)
        request = {"game": "nobody_wants_it", "lineup": ["you", offered]}
        refused(client.post("/api/sessions", json=request), 400, f"agent '{offered}'")


def test_an_offered_saved_policy_is_listed_and_seated_only_in_its_own_game():
    offered = f"ppo:{PRETRAINED / 'nobody_wants_it.npz'}"  # its record: nobody_wants_it
    with TestClient(create_app(None, [offered]), base_url=LOCAL) as client:
        listing = {
            game["name"]: game["agents"] for game in client.get("/api/games").json()["games"]
        }
        assert [name for name, agents in listing.items() if offered in agents] == [
            "nobody_wants_it"
        ]
        assert listing["nobody_wants_it"][-1] == offered
        henhouse = {"game": "henhouse", "lineup": ["you", offered]}
        message = (
            f"agent '{offered}' plays nobody_wants_it (the game its file records), not henhouse"
        )
        refused(client.post("/api/sessions", json=henhouse), 400, message)
        nwi = {"game": "nobody_wants_it", "lineup": ["you", offered, offered, offered]}
        assert client.post("/api/sessions", json=nwi).status_code == 201


# --- replays -------------------------------------------------------------------------------------


def test_replays_lists_the_gifs_inside_the_folder(client):
    # the link to a file outside and everything under the link to a folder outside are left out
    assert client.get("/api/replays").json() == {"replays": ["game_0001.gif", "run/game_0002.gif"]}
    replay = client.get("/api/replay", params={"name": "run/game_0002.gif"})
    assert replay.status_code == 200 and replay.content == b"GIF89a two"
    assert replay.headers["content-type"] == "image/gif"


@pytest.mark.parametrize(
    "name, status, message",
    [
        ("", 400, "name the replay"),
        ("../secret.gif", 400, "climbs out with '..'"),
        ("run/../../secret.gif", 400, "climbs out with '..'"),
        ("/etc/passwd.gif", 400, "is absolute"),
        ("C:/x.gif", 400, "is absolute"),
        ("run\\game_0002.gif", 400, "no backslashes"),
        ("notes.txt", 400, "only .gif files"),
        ("link_out.gif", 403, "outside the replay folder"),
        ("link_dir/secret.gif", 403, "outside the replay folder"),
        ("missing.gif", 404, "no replay 'missing.gif'"),
        ("folder.gif", 404, "is not a file"),
    ],
)
def test_replay_requests_outside_the_folder_are_refused(client, name, status, message):
    refused(client.get("/api/replay", params={"name": name}), status, message)
    assert client.get("/api/replays").status_code == 200  # the server goes on


@pytest.mark.parametrize(
    "name, status, message",
    [
        ("a" * 300 + ".gif", 404, "(File name too long)"),
        ("run/" + "a" * 300 + ".gif", 404, "(File name too long)"),
        ("a/" * 600 + "x.gif", 400, "replay name of 1205 characters: at most 1024 are read"),
    ],
)
def test_replay_names_too_long_are_refused(client, name, status, message):
    refused(client.get("/api/replay", params={"name": name}), status, message)


def test_a_link_loop_in_the_replay_folder_is_left_out(client, replay_folder):
    (replay_folder / "loop.gif").symlink_to(replay_folder / "loop.gif")
    assert client.get("/api/replays").json() == {"replays": ["game_0001.gif", "run/game_0002.gif"]}
    refused(client.get("/api/replay", params={"name": "loop.gif"}), 404, "no replay 'loop.gif'")


def test_no_replay_folder_offers_nothing():
    with TestClient(create_app(), base_url=LOCAL) as client:
        assert client.get("/api/games").json()["replays"] is False
        assert client.get("/api/replays").json() == {"replays": []}
        refused(client.get("/api/replay", params={"name": "a.gif"}), 404, "offers no replays")


# --- the command ---------------------------------------------------------------------------------


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--port", "0"], "--port: must be an integer of at least 1"),
        (["--port", "70000"], "--port: must be a port number 1..65535"),
        (["--replays", "no/such/folder"], "--replays: 'no/such/folder' is not a folder"),
        (["--replays", ""], "--replays: an empty path names no folder"),
        (["--agent", "grandmaster"], "--agent: 'grandmaster' is not KIND:PATH"),
        (["--agent", "ppo:no/such/run"], "--agent: 'ppo:no/such/run': no file or folder"),
    ],
)
def test_cli_serve_refuses_bad_options_before_serving(capsys, argv, message):
    code, out, err = run(capsys, "serve", *argv)
    assert code == 2 and out == "" and message in err


def test_cli_serve_refuses_a_port_in_use(capsys):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run(capsys, "serve", "--port", str(port))
    assert code == 2 and f"--port: 127.0.0.1:{port} cannot be used" in err and out == ""


def test_a_port_a_stopped_server_left_in_time_wait_may_be_served_again():
    """A connection the server closed first waits in TIME-WAIT on the server's port; uvicorn
    binds with SO_REUSEADDR, so the port is free for it, and the probe must say so."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = listener.accept()
            accepted.close()  # the server's side closes first
            assert client.recv(1) == b""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as plain, pytest.raises(OSError):
        plain.bind(("127.0.0.1", port))  # the TIME-WAIT is there
    _check_port_free(port)  # no UsageError


def test_the_page_is_part_of_the_package():
    static = os.path.join(os.path.dirname(web_sessions.__file__), "static")
    assert sorted(os.listdir(static)) == ["app.js", "index.html", "style.css"]

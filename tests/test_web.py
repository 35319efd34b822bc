"""The web page's server (``cardzoo serve``), through Starlette's TestClient: every route, every
bad request refused with a 4xx and a JSON message (the server going on), the person's view that
shows nothing of the other seats, and replays that never read outside their folder."""

from __future__ import annotations

import io
import os
import socket

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the web extra)")

from PIL import Image  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cardzoo import cli  # noqa: E402
from cardzoo.envs import GAMES, load_game  # noqa: E402
from cardzoo.envs.helpers import game_rng_from_seed  # noqa: E402
from cardzoo.play import play  # noqa: E402
from cardzoo.web import sessions as web_sessions  # noqa: E402
from cardzoo.web.app import create_app  # noqa: E402

LOCAL = "http://127.0.0.1:8000"
NWI = {"game": "nobody_wants_it", "lineup": ["you", "nwi_dodger", "random"], "seed": 7}
WATCH = {"game": "nobody_wants_it", "lineup": ["nwi_dodger", "random", "random"], "seed": 7}


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
    one = client.post(f"/api/sessions/{data['id']}/step").json()
    assert one["steps"] == 1 and one["last_move"].startswith("player_0: ")
    end = client.post(f"/api/sessions/{data['id']}/step", json={"moves": 10000}).json()
    assert end["over"] and end["to_move"] is None and end["legal_moves"] == []
    assert end["result"]["text"].startswith("Scores: player_0 (nwi_dodger) ")
    assert sum(end["result"]["winners"]) >= 1
    assert client.get(f"/api/sessions/{data['id']}").json() == end
    refused(client.post(f"/api/sessions/{data['id']}/step"), 409, "the game is over")


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
    ({"game": "nobody_wants_it", "lineup": ["you", "grandmaster"]}, "agent 'grandmaster'"),
    ({"game": "nobody_wants_it", "lineup": ["you"]}, "1 seats, but nobody_wants_it seats 2..7"),
    ({"game": "nobody_wants_it", "lineup": ["you", "you"]}, "a person plays one seat"),
    ({"game": "nobody_wants_it", "lineup": "you,random"}, "lineup must be a list"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": -1}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "seed": True}, "seed must be"),
    ({"game": "nobody_wants_it", "lineup": ["you", "random"], "x": 1}, "unknown field(s) ['x']"),
    ({"game": "nobody_wants_it", "lineup": ["you", "ppo:/etc"]}, "is not offered by this"),
    ({"game": "nobody_wants_it", "lineup": ["you", "rllib:../runs"]}, "is not offered by this"),
]


@pytest.mark.parametrize("request_body, message", BAD_STARTS)
def test_bad_new_games_are_refused(client, request_body, message):
    refused(client.post("/api/sessions", json=request_body), 400, message)
    assert client.get("/api/games").status_code == 200  # the server goes on


def test_bodies_that_are_not_json_objects_are_refused(client):
    refused(client.post("/api/sessions", content=b"{not json"), 400, "must be a JSON object")
    refused(client.post("/api/sessions", json=[1, 2]), 400, "must be a JSON object")
    refused(client.post("/api/sessions", content=b"\xff\xfe"), 400, "must be a JSON object")


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
    refused(client.post(f"/api/sessions/{playing['id']}/step"), 409, "it is your turn")
    refused(client.post(f"/api/sessions/{watching['id']}/act", json={"action": 0}), 409, "watched")
    refused(client.post(f"/api/sessions/{playing['id']}/act", json={}), 400, '{"action"')
    step = f"/api/sessions/{watching['id']}/step"
    refused(client.post(step, json={"moves": 0}), 400, "moves must be 1..10000")
    refused(client.post(step, json={"moves": "all"}), 400, "moves must be an integer")
    refused(client.post(step, json={"turns": 1}), 400, "unknown field(s) ['turns']")


def test_unknown_games_views_routes_and_methods_are_refused(client):
    refused(client.get("/api/sessions/g999"), 404, "no game 'g999'")
    refused(client.post("/api/sessions/g999/step"), 404, "no game 'g999'")
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


def test_the_oldest_games_are_forgotten_beyond_the_limit(client, monkeypatch):
    monkeypatch.setattr(web_sessions, "MAX_SESSIONS", 2)
    ids = [client.post("/api/sessions", json=WATCH).json()["id"] for _ in range(3)]
    refused(client.get(f"/api/sessions/{ids[0]}"), 404, "no game")
    assert client.get(f"/api/sessions/{ids[2]}").status_code == 200


def test_an_offered_saved_policy_may_be_named_and_its_loading_errors_are_refused(tmp_path):
    offered = f"ppo:{tmp_path}"
    with TestClient(create_app(None, [offered]), base_url=LOCAL) as client:
        assert offered in client.get("/api/games").json()["games"][0]["agents"]
        request = {"game": "nobody_wants_it", "lineup": ["you", offered]}
        refused(client.post("/api/sessions", json=request), 400, f"agent '{offered}'")


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


def test_the_page_is_part_of_the_package():
    static = os.path.join(os.path.dirname(web_sessions.__file__), "static")
    assert sorted(os.listdir(static)) == ["app.js", "index.html", "style.css"]

"""The web page in a real browser: ``cardzoo serve`` in its own process on a free loopback port,
headless Chromium driven by Playwright. A person plays a whole game of Nobody Wants It by
clicking their legal moves, and the page shows the result terminal play gives for the same deal
and moves; a watched game of Henhouse is played to the end; a recorded match opens.

Skipped, saying why, where Playwright or Chromium is missing (``.ci/run`` installs Debian's
``chromium``; Playwright drives it, it downloads no browser of its own)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

from cardzoo.play import play  # noqa: E402
from cardzoo.recording import record_games  # noqa: E402
from cardzoo.web.sessions import Sessions  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip("no chromium to drive (apt-get install chromium)", allow_module_level=True)

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parent.parent
WAIT_MS = 20_000


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(url: str, server: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"cardzoo serve exited: {server.stderr.read().decode()}")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(url + "api/games", timeout=2) as response,
        ):
            if response.status == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"cardzoo serve did not answer within {seconds} s")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The command itself, in its own process, serving a folder with one recorded match."""
    replays = tmp_path_factory.mktemp("replays")
    record_games("nobody_wants_it", ["nwi_dodger", "random"], replays, num_games=1)
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    command = [
        sys.executable,
        "-m",
        "cardzoo",
        "serve",
        "--port",
        str(port),
        "--replays",
        str(replays),
    ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until_serving(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, server):
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(server)
    page.wait_for_selector("body[data-ready=yes]")
    yield page
    page.close()


def wait_for_picture(page, steps: str) -> None:
    """Until the table's picture after step ``steps`` has loaded (the page asks for it then)."""
    page.wait_for_function(
        """steps => {
            const img = document.getElementById("picture");
            return img.src.endsWith("&step=" + steps) && img.complete && img.naturalWidth > 0;
        }""",
        arg=steps,
    )


def wait_for_step_after(page, steps: str) -> str:
    page.wait_for_function(f"document.body.dataset.steps !== {steps!r}")
    return page.evaluate("document.body.dataset.steps")


def test_a_person_plays_a_whole_game_of_nobody_wants_it_by_clicking(page):
    page.select_option("#game", "nobody_wants_it")
    page.select_option("#players", "3")
    assert page.input_value("#seat-0") == "you" and page.input_value("#seat-1") == "nwi_dodger"
    page.select_option("#seat-2", "random")
    page.fill("#seed", "7")
    page.click("#start")
    page.wait_for_selector("#moves button.move")
    steps = page.evaluate("document.body.dataset.steps")
    clicked = []
    while page.is_hidden("#result"):
        assert page.inner_text("#status").startswith("Your turn (player_0).")
        wait_for_picture(page, steps)
        first = page.locator("#moves button.move").first
        clicked.append(int(first.get_attribute("data-action")))
        first.click()
        steps = wait_for_step_after(page, steps)
    terminal = play(
        "nobody_wants_it",
        ["nwi_dodger", "random"],
        seed=7,
        input_stream=io.StringIO("".join(f"{action}\n" for action in clicked)),
        output_stream=io.StringIO(),
    )
    result = page.inner_text("#result")
    scores = ", ".join(
        f"player_{seat} ({name}) {score:g}"
        for seat, (name, score) in enumerate(zip(["you", "nwi_dodger", "random"], terminal.scores))
    )
    assert result.startswith(f"Scores: {scores}\n")
    assert result.endswith("You won!" if terminal.won else "You lost.")
    assert page.inner_text("#status") == "Game over."
    assert page.locator("#moves button").count() == 0
    page.select_option("#view", "all")  # the whole table may be seen once the game is over
    page.wait_for_function("document.getElementById('picture').src.includes('view=all')")
    page.wait_for_function("document.getElementById('picture').naturalWidth > 0")


def test_a_watched_game_of_henhouse_is_played_to_the_end(page):
    page.select_option("#game", "henhouse")
    page.select_option("#players", "2")
    page.select_option("#seat-0", "random")
    page.fill("#seed", "3")
    page.click("#start")
    page.wait_for_selector("#next:visible")
    steps = page.evaluate("document.body.dataset.steps")
    page.click("#next")
    assert wait_for_step_after(page, steps) == "1"
    assert page.inner_text("#status") == "player_0 to move. Last move: player_1: turn top card."
    wait_for_picture(page, "1")
    page.click("#finish")
    page.wait_for_selector("#result:visible")
    assert page.inner_text("#status") == "Game over."
    # the same game played by the server's sessions directly
    watched = Sessions().start({"game": "henhouse", "lineup": ["random", "random"], "seed": 3})
    watched.advance(10_000)
    assert page.inner_text("#result") == watched.describe()["result"]["text"]


def test_a_recorded_match_opens(page):
    page.wait_for_selector("#replay-list a")
    assert page.locator("#replay-list a").all_inner_texts() == ["game_0001.gif"]
    page.click("text=game_0001.gif")
    page.wait_for_function("document.getElementById('replay').naturalWidth > 0")
    assert page.eval_on_selector("#replay", "img => img.naturalWidth") == 960


@pytest.mark.parametrize("typed", ["abc", "-1", "7.5", "1e3"])
def test_a_deal_seed_that_is_not_digits_is_refused_by_the_page(page, typed):
    page.fill("#seed", typed)
    page.click("#start")
    page.wait_for_selector("#error:visible")
    assert page.inner_text("#error") == (
        f'The deal seed must be a whole number (digits only), or empty: got "{typed}".'
    )
    assert page.is_hidden("#table")  # no game was started


def test_a_deal_seed_above_2_to_the_53_is_dealt_and_shown_exactly(page):
    page.select_option("#game", "henhouse")
    page.select_option("#players", "2")
    page.select_option("#seat-0", "random")
    page.fill("#seed", "9007199254740993")  # 2**53 + 1: a JavaScript number would be 2**53
    page.click("#start")
    page.wait_for_selector("#next:visible")
    assert page.inner_text("#title") == "henhouse (deal seed 9007199254740993)"
    page.click("#finish")
    page.wait_for_selector("#result:visible")
    request = {"game": "henhouse", "lineup": ["random", "random"], "seed": 2**53 + 1}
    watched = Sessions().start(request)
    watched.advance(10_000)
    assert page.inner_text("#result") == watched.describe()["result"]["text"]

"""benchmarks/learning.py's report: a tournament run for some shipped policies replaces their
blocks and keeps the others' (``--only``), and ``--search pimc`` seats each game's own budget."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

SECTION = """
### `nobody_wants_it`

nwi header

| table |

### `minus_two`

old minus two

### `foxy`

foxy block

"""


@pytest.fixture(scope="module")
def learning():
    spec = importlib.util.spec_from_file_location("benchmarks_learning",
                                                  BENCHMARKS / "learning.py")  # fmt: skip
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_rerun_tournament_replaces_its_block_and_keeps_the_others(learning):
    new = "### `minus_two`\n\nnew minus two\n\n| rank |\n"
    order = ["nobody_wants_it", "believe_it_or_not", "minus_two", "foxy"]
    assert learning.replace_blocks(SECTION, new, order) == (
        "### `nobody_wants_it`\n\nnwi header\n\n| table |\n\n"
        "### `minus_two`\n\nnew minus two\n\n| rank |\n\n"
        "### `foxy`\n\nfoxy block\n"
    )


def test_a_new_tournament_takes_its_place_in_the_report_order(learning):
    new = "### `believe_it_or_not`\n\nbion\n"
    order = ["nobody_wants_it", "believe_it_or_not", "minus_two", "foxy"]
    blocks = learning.replace_blocks(SECTION, new, order).split("\n\n### ")
    assert [block.split("`")[1] for block in blocks] == order


def test_search_pimc_seats_each_games_budget_and_none_where_the_game_has_none(learning):
    assert learning.search_agent("pimc", "nobody_wants_it") == "pimc:simulations=3000"
    assert learning.search_agent("pimc", "believe_it_or_not") == "pimc:simulations=1000"
    assert learning.search_agent("pimc", "minus_two") == "pimc:simulations=600"
    assert learning.search_agent("pimc", "foxy") is None
    assert learning.search_agent("ismcts:simulations=50", "foxy") == "ismcts:simulations=50"
    assert learning.search_agent(None, "minus_two") is None

"""The one grammar of agent parameters, ``NAME:KEY=VALUE[:KEY=VALUE...]``
(:func:`cardzoo.agents.base.parse_params`), as both its readers use it: the agent factory
(:func:`cardzoo.agents.make_agent`) and the search benchmarks' ``parse_agent_params``."""

from __future__ import annotations

import pytest

from cardzoo.agents import make_agent
from cardzoo.agents.base import parse_params
from cardzoo.agents.search import ISMCTSAgent, PIMCAgent, parse_agent_params
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt

PIMC_KEYS = "simulations, seconds, seed, rollout, horizon"


def error_of(call, *args) -> str:
    with pytest.raises(ValueError) as error:
        call(*args)
    return str(error.value)


def test_parse_params_converts_each_value_to_its_declared_type():
    params = parse_params(
        "ismcts",
        "simulations=400:seconds=0.05:seed=3:rollout=random:horizon=round:exploration=1.5",
        ISMCTSAgent.PARAMS,
    )
    assert params == {
        "simulations": 400,
        "seconds": 0.05,
        "seed": 3,
        "rollout": "random",
        "horizon": "round",
        "exploration": 1.5,
    }
    assert [type(value) for value in params.values()] == [int, float, int, str, str, float]


def test_parse_params_refuses_an_unknown_key():
    assert error_of(parse_params, "pimc", "simulations=3:depth=2", PIMCAgent.PARAMS) == (
        f"agent 'pimc': unknown parameter 'depth'; write KEY=VALUE with KEY one of {PIMC_KEYS}"
    )


def test_parse_params_refuses_an_item_without_equals():
    assert error_of(parse_params, "pimc", "simulations", PIMCAgent.PARAMS) == (
        f"agent 'pimc': 'simulations' is not KEY=VALUE; write KEY=VALUE with KEY one of {PIMC_KEYS}"
    )


@pytest.mark.parametrize("pairs_text", ["simulations=5:simulations=6", "seed=1:seed=1"])
def test_parse_params_refuses_a_repeated_key(pairs_text):
    """Decision (issue 32): a key given twice is refused, even with the same value, rather
    than the last one silently winning."""
    key = pairs_text.split("=")[0]
    assert error_of(parse_params, "pimc", pairs_text, PIMCAgent.PARAMS) == (
        f"agent 'pimc': parameter {key} given twice in {pairs_text!r}"
    )


def test_parse_params_refuses_a_value_of_the_wrong_type():
    assert error_of(parse_params, "pimc", "simulations=abc", PIMCAgent.PARAMS) == (
        "agent 'pimc': parameter simulations must be int, got 'abc'"
    )
    assert error_of(parse_params, "pimc", "seconds=soon", PIMCAgent.PARAMS) == (
        "agent 'pimc': parameter seconds must be float, got 'soon'"
    )


def test_parse_params_refuses_parameters_for_an_agent_that_takes_none():
    assert error_of(parse_params, "nwi_dodger", "depth=3", {}) == (
        "agent 'nwi_dodger' takes no parameters, got 'depth=3'"
    )


@pytest.mark.parametrize("pairs_text", ["", ":x=1", "seed=1::simulations=3", "seed=1:"])
def test_parse_params_refuses_an_empty_item(pairs_text):
    assert error_of(parse_params, "pimc", pairs_text, PIMCAgent.PARAMS) == (
        f"agent 'pimc': empty parameter in {pairs_text!r} (':' twice in a row or at the end); "
        f"write KEY=VALUE with KEY one of {PIMC_KEYS}"
    )


def test_make_agent_and_parse_agent_params_read_the_same_parameters():
    game = NobodyWantsIt()
    spec = "ismcts:simulations=40:exploration=1.5:horizon=round"
    agent = make_agent("nobody_wants_it", spec, game, seed=0)
    name, params = parse_agent_params(spec)
    assert (name, params) == ("ismcts", {"simulations": 40, "exploration": 1.5, "horizon": "round"})
    assert (agent.simulations, agent.exploration) == (40, 1.5)


@pytest.mark.parametrize("spec", ["pimc::x=1", "pimc:seed=1:", "pimc:simulations=abc", "pimc:x"])
def test_make_agent_and_parse_agent_params_give_the_same_error(spec):
    game = NobodyWantsIt()
    expected = error_of(parse_params, "pimc", spec.partition(":")[2], PIMCAgent.PARAMS)
    assert error_of(make_agent, "nobody_wants_it", spec, game) == expected
    assert error_of(parse_agent_params, spec) == expected

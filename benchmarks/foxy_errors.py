"""Where a Foxy policy loses its points: the number it writes against the true answer.

    python benchmarks/foxy_errors.py [--agent pretrained] [--memory perfect] [--games 300]

The agent plays seat 0 of ``--games`` two-player games (seat 1 random: its numbers do not change
seat 0's), deals from seed 5·10⁶. Printed per true answer: how often it came up, the mean of
(written − answer), the share written exactly, and the answers at which the agent circled with
what it wrote. A number above the answer scores 0; below it scores itself; the exact answer
circled scores twice itself. benchmarks/learning.md quotes it for the pretrained agent.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from cardzoo.agents import make_agent
from cardzoo.envs import load_game


def written_against_answers(agent_name: str, memory: str, games: int) -> tuple[dict, list]:
    """(answer -> list of written - answer) and the (answer, written) pairs that were circled."""
    game = load_game("foxy", memory=memory)
    agent = make_agent("foxy", agent_name, game, seed=0)
    rival = make_agent("foxy", "random", game, seed=1)
    turned = game.observation_layout["cards_turned"].start
    errors: dict[int, list[int]] = defaultdict(list)
    circles = []
    for index in range(games):
        state = game.new_state(np.random.default_rng(5_000_000 + index))
        agent.reset()
        rival.reset()
        while not state.terminal:
            player = int(state.current_player)
            observation = {
                "observation": game.observe(state, player),
                "action_mask": game.legal_mask(state, player),
            }
            if player == 0:
                action = agent.act(observation)
                answer = int(state.answers[int(observation["observation"][turned]) - 1])
                number = action % (game.max_guess + 1)
                errors[answer].append(number - answer)
                if action > game.max_guess:
                    circles.append((answer, number))
            else:
                action = rival.act(observation)
            game.apply(state, action)
    return errors, circles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="pretrained")
    parser.add_argument("--memory", default="perfect", choices=["perfect", "none"])
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games: at least 1")
    errors, circles = written_against_answers(args.agent, args.memory, args.games)
    print(f"{args.agent}, memory={args.memory}, {args.games} games")
    print("| answer | cards | mean written − answer | written exactly |")
    print("| ---: | ---: | ---: | ---: |")
    for answer in sorted(errors):
        values = np.array(errors[answer])
        print(f"| {answer} | {values.size} | {values.mean():+.2f} | {np.mean(values == 0):.0%} |")
    if not circles:
        print("circled: never")
        return
    answers = np.array([answer for answer, _ in circles])
    exact = np.mean([answer == number for answer, number in circles])
    print(
        f"circled: {len(circles)} times, at answers of mean {answers.mean():.1f} "
        f"(largest {answers.max()}), the number exact {exact:.0%} of the time"
    )


if __name__ == "__main__":
    main()

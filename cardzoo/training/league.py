"""The league: opponents drawn by how hard they are for the learner, and exploiters that join it.

With ``league`` on (``cardzoo train --league``) every training game seats one *member* of the
league in all the other seats (copies of it, as ``cardzoo exploit`` measures), drawn with
**prioritized fictitious self-play** (PFSP, Vinyals et al. 2019, AlphaStar): a member is drawn
more often the more it beats the learner. The members are

- the agents the run's opponent mix names (heuristics, saved policies, random);
- frozen snapshots of the learner (``self`` in the mix), one more at every periodic evaluation,
  the last ``pool_size`` kept;
- **exploiters**: every ``exploiter_every`` decisions of the learner, a fresh policy is trained
  for ``exploiter_timesteps`` decisions against copies of the current learner (played as it
  ships, greedily), by default as ``cardzoo exploit`` does (``exploiter_recipe``), then frozen
  into the league (the last ``pool_size`` kept). Its gain over the learner's own share is a
  running estimate of how exploitable the learner is, logged with the run's evaluations.

Draw weights. A member's prior is its weight in the opponent mix; ``self``'s weight is shared
equally by the kinds of frozen policy the league holds (snapshots, exploiters), then equally
within a kind, so that a few exploiters are not drowned by many snapshots. The learner's win
rate ``x`` against each member is estimated from the games of recent rollouts (counts decayed by
``DECAY`` per rollout, so old results fade and a member the learner stopped meeting is tried
again), starting from the fair share ``f``; it is mapped to the odds ``y`` that the learner
beats the member, even at the fair share and certain at 1: ``y = x / (2 f)`` up to ``f``, then
``y = 1/2 + (x - f) / (2 (1 - f))``; and the member's weight is
``prior * ((1 - y) ** power + FLOOR)`` (AlphaStar's ``f_hard``; a floor so no member is
forgotten). ``power`` 0 draws by the priors alone.

**The fair share** (``fair_share``, :data:`FAIR_SHARES`) is what a seat wins among equals: by
default (``"observed"``) the share of seats that won in the league's games, counted as the
results are (decayed, from a prior of ``PRIOR_GAMES`` games with one winner each). It is not
``1/players`` in every game: in Believe It or Not's standard game three players of four win.
**Decision:** measured, not declared by each game, since it follows the rules' variants and the
games cut short (no winner). ``"one_winner"`` is the rule of the runs before this setting:
``f = 1/players`` and ``y = min(1, x * players / 2)``, which put every member the learner beats
more than half the time at the floor: in Believe It or Not's standard game every member, so
that the draws there followed the priors alone.

**Decision (one member per game):** the other seats of a game are copies of one member, not a
member per seat: the result of the game is then that member's result, which is what PFSP needs
and what exploitability measures. Without ``league`` every seat is drawn from the mix on its
own, as before.

Everything here is plain data, saved in ``progress.json`` and restored exactly on resume.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from cardzoo.agents.policy import NumpyPolicy

#: the draw weight's floor, so that a member the learner always beats is still met at times
FLOOR = 0.02
#: each rollout multiplies the results counted so far by this (a memory of ~20 rollouts)
DECAY = 0.95
#: games of prior, at the fair share, in every member's win-rate estimate (and one-winner games
#: in the observed fair share's)
PRIOR_GAMES = 4.0
#: how the fair share is known (``League.fair_share``; module docstring): the share of seats
#: that won in the league's games, or one in the number of players (the runs before)
OBSERVED, ONE_WINNER = "observed", "one_winner"
FAIR_SHARES = (OBSERVED, ONE_WINNER)

AGENT, SNAPSHOT, EXPLOITER = "agent", "snapshot", "exploiter"


@dataclasses.dataclass
class Member:
    """One opponent of the league: a named agent, or a frozen policy (snapshot, exploiter)."""

    key: str  # unique: the agent's name, "snapshot@STEPS", "exploiter-K@STEPS"
    kind: str
    policy: dict[str, Any] | None = None  # a NumpyPolicy's state for snapshots and exploiters
    games: float = 0.0  # games against the learner, decayed
    wins: float = 0.0  # of them won by the learner, decayed

    def agent_name(self) -> str | None:
        return self.key if self.kind == AGENT else None


@dataclasses.dataclass
class League:
    """The members, their results against the learner, and how they are drawn."""

    num_players: int
    mix: dict[str, float]  # the run's opponent mix (weights summing to 1; "self" included)
    pool_size: int
    power: float = 2.0
    members: list[Member] = dataclasses.field(default_factory=list)
    exploiters: int = 0  # exploiters trained so far
    #: how the fair share is known (:data:`FAIR_SHARES`; a league saved before: one winner)
    fair_share: str = ONE_WINNER
    seats: float = 0.0  # seats of the league's games, decayed
    winners: float = 0.0  # of them won, decayed

    @classmethod
    def start(
        cls,
        num_players: int,
        mix: dict[str, float],
        pool_size: int,
        power: float,
        fair_share: str = OBSERVED,
    ) -> League:
        """A league of the mix's named agents (``self``'s members join as training goes)."""
        if fair_share not in FAIR_SHARES:
            raise ValueError(f"fair_share must be one of {FAIR_SHARES}, got {fair_share!r}")
        league = cls(num_players, dict(mix), pool_size, power, fair_share=fair_share)
        league.members = [Member(name, AGENT) for name in mix if name != "self"]
        return league

    # --- membership ----------------------------------------------------------------------

    def add(self, kind: str, key: str, policy: NumpyPolicy) -> None:
        """A frozen policy joins; the oldest of its kind leaves beyond ``pool_size``."""
        self.members.append(Member(key, kind, policy.state()))
        same = [m for m in self.members if m.kind == kind]
        for old in same[: max(0, len(same) - self.pool_size)]:
            self.members.remove(old)
        if kind == EXPLOITER:
            self.exploiters += 1

    def learned(self) -> list[Member]:
        return [m for m in self.members if m.kind != AGENT]

    # --- results and weights -------------------------------------------------------------

    def record(self, results: list[tuple[str, bool, int]]) -> None:
        """One rollout's finished games, ``(member key, learner won, winners)``, after fading
        the old results by :data:`DECAY`."""
        for member in self.members:
            member.games *= DECAY
            member.wins *= DECAY
        self.seats *= DECAY
        self.winners *= DECAY
        by_key = {member.key: member for member in self.members}
        for key, won, winners in results:
            self.seats += self.num_players
            self.winners += winners
            member = by_key.get(key)
            if member is not None:  # a member that left the league meanwhile counts no more
                member.games += 1
                member.wins += float(won)

    def fair(self) -> float:
        """The fair share: what a seat wins among equals (module docstring)."""
        if self.fair_share == ONE_WINNER:
            return 1.0 / self.num_players
        prior = PRIOR_GAMES * self.num_players
        return (self.winners + PRIOR_GAMES) / (self.seats + prior)

    def learner_win_rate(self, member: Member) -> float:
        return (member.wins + PRIOR_GAMES * self.fair()) / (member.games + PRIOR_GAMES)

    def odds(self, win_rate: float) -> float:
        """The odds that the learner beats a member it wins ``win_rate`` against: even at the
        fair share, certain at 1 (module docstring)."""
        if self.fair_share == ONE_WINNER:
            return min(1.0, win_rate * self.num_players / 2)  # as the runs before computed it
        fair = self.fair()
        if win_rate <= fair:
            return win_rate / (2 * fair)
        return 0.5 + (win_rate - fair) / (2 * (1 - fair)) if fair < 1 else 0.5

    def weights(self) -> np.ndarray:
        """Each member's probability of being drawn for a game (module docstring)."""
        priors = np.array([self._prior(member) for member in self.members])
        odds = np.array([self.odds(self.learner_win_rate(m)) for m in self.members])
        weights = priors * ((1.0 - odds) ** self.power + FLOOR)
        total = weights.sum()
        return weights / total if total > 0 else np.full(len(weights), 1.0 / len(weights))

    def _prior(self, member: Member) -> float:
        if member.kind == AGENT:
            return self.mix.get(member.key, 0.0)
        kinds = {m.kind for m in self.learned()}
        same = sum(m.kind == member.kind for m in self.members)
        return self.mix.get("self", 0.0) / len(kinds) / same

    def table(self) -> list[dict[str, Any]]:
        """Per member: its key, kind, draw probability and the learner's estimated win rate."""
        return [
            {
                "member": m.key,
                "kind": m.kind,
                "weight": round(float(w), 4),
                "learner_win_rate": round(self.learner_win_rate(m), 4),
                "games": round(m.games, 1),
            }
            for m, w in zip(self.members, self.weights())
        ]

    # --- what the sampling workers need, and saving ------------------------------------------

    def roster(self) -> list[tuple[str, str | None, dict[str, Any] | None]]:
        """The members as the workers build them: (key, agent name or None, policy state)."""
        return [(m.key, m.agent_name(), m.policy) for m in self.members]

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        for member in data["members"]:
            if member["policy"] is not None:
                member["policy"] = encode_policy(member["policy"])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> League:
        members = [
            Member(**{**m, "policy": None if m["policy"] is None else decode_policy(m["policy"])})
            for m in data["members"]
        ]
        return cls(**{**data, "members": members})


def encode_policy(state: dict[str, Any]) -> dict[str, Any]:
    """A pool policy as JSON: its layers, its ordinal head's numbers and kinds, and its recurrent
    core's kind and weights, if it has them."""
    return {
        "layers": [[w.tolist(), b.tolist(), activation] for w, b, activation in state["layers"]],
        "head": _as_json(state.get("head")),
        "core": _as_json(state.get("core")),
    }


def _as_json(part: dict[str, Any] | None) -> dict[str, Any] | None:
    """A head's or a core's state with its arrays as lists (its flags and names as they are)."""
    if part is None:
        return None
    return {key: v.tolist() if isinstance(v, np.ndarray) else v for key, v in part.items()}


def decode_policy(data: dict[str, Any]) -> dict[str, Any]:
    head, core = data.get("head"), data.get("core")
    return {
        "layers": [
            (np.asarray(w, np.float32), np.asarray(b, np.float32), activation)
            for w, b, activation in data["layers"]
        ],
        "head": None
        if head is None
        else {
            "numbers": np.asarray(head["numbers"], np.float32),
            "kinds": np.array(head["kinds"]),
            "shared_sharpness": bool(head.get("shared_sharpness", False)),
        },
        "core": None
        if core is None
        else {
            key: value if key == "kind" else np.asarray(value, np.float32)
            for key, value in core.items()
        },
    }

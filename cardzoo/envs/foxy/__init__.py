"""Foxy: rules engine (:mod:`.rules`), PettingZoo environments AEC and parallel (:mod:`.env`)."""

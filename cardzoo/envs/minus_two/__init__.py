"""Minus Two: rules engine (:mod:`.rules`) and PettingZoo environment (:mod:`.env`)."""

"""Believe It or Not: rules engine (:mod:`.rules`) and PettingZoo environment (:mod:`.env`)."""

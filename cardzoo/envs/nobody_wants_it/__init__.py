"""Nobody Wants It: rules engine (:mod:`.rules`) and PettingZoo environment (:mod:`.env`)."""

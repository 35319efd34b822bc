"""Training support: the single-agent Gymnasium view of every game (no torch needed to import)."""

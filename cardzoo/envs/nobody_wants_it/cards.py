"""The deck of Nobody Wants It: four species of 18 cards (the game's kernel and its ``Game``
both read it)."""

SPECIES = ("sheep", "pig", "horse", "cow")
SHEEP, PIG, HORSE, COW = range(4)
NUM_SPECIES = len(SPECIES)
CARDS_PER_SPECIES = 18
NUM_CARDS = NUM_SPECIES * CARDS_PER_SPECIES

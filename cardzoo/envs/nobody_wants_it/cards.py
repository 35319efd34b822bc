"""The deck of Nobody Wants It: four species of 18 cards (the engine and the compiled playouts
both read it)."""

SPECIES = ("sheep", "pig", "horse", "cow")
SHEEP, PIG, HORSE, COW = range(4)
NUM_SPECIES = len(SPECIES)
CARDS_PER_SPECIES = 18
NUM_CARDS = NUM_SPECIES * CARDS_PER_SPECIES

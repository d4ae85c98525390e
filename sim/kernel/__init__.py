"""The numba game kernel: plain jitted functions over integer arrays.

It reads the declarations of ``sim.base`` (the state layout ``st``, the flat card
table ``tab``, the vocabulary) and nothing above it. One module per rule area, so
a rule is found where its rulebook section would be:

* the turn, step by step: ``turn`` (the steps in order and the end conditions),
  ``wealth``, ``surge``, ``portent`` and ``feats`` (A Reign of War), ``war``,
  ``offering``;
* what the steps act on: ``zones`` (deck, discard pile, hands, coins, VP tokens),
  ``board`` (cities: units, capacity, strength, cost, war-torn), ``abilities`` (the
  effect interpreter), ``draft`` (decks built before play), ``decisions`` (what a
  player chooses and how its options are encoded), ``scoring`` (the score and the
  tie-breaks);
* the game and many games: ``game`` (set-up, the game loop, the end) and ``batch``
  (blocks of games on a pool of threads);
* plumbing: ``tab`` (readers of the card table), ``rng`` (counter-based random
  streams), ``jit`` (the ``@kernel`` decorator) and ``cache`` (numba's on-disk cache).

Importing the package checks the on-disk cache against the source (``cache``).
"""

from sim.compiler.cache import ensure_fresh_cache

ensure_fresh_cache()

"""The numba game kernel: plain jitted functions over integer arrays.

One module per rule area, so a rule is found where its rulebook section would
be: ``zones`` (deck, discard, hands), ``board`` (cities, capacity, strength,
cost), ``abilities`` (the effect interpreter), ``wealth``, ``surge``, ``war``,
``offering``, ``scoring``, ``game`` (set-up and the turn loop) and ``batch``
(many games in parallel).
"""

from sim.kernel.cache import ensure_fresh_cache

ensure_fresh_cache()

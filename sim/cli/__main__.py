"""``python -m sim.cli``, for when the console script is not on PATH."""

from sim.cli import console

console()

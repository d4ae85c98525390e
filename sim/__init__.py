"""omensim: a high-throughput Monte Carlo simulator for the Omen card games."""

__version__ = "0.1.0"

from sim.base.errors import Error

__all__ = ["Error", "__version__"]

"""omensim: a high-throughput Monte Carlo simulator for the Omen card games."""

__version__ = "0.1.0"

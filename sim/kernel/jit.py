"""``@kernel`` and its companions, for kernel modules: defined in ``sim.compiler``."""

from sim.compiler import ASK_SIGNATURE, ASK_TYPE, PLAIN, as_ask, ask_of, entry_point, kernel

__all__ = ["ASK_SIGNATURE", "ASK_TYPE", "PLAIN", "as_ask", "ask_of", "entry_point", "kernel"]

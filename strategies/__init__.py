"""Scripted bots: numba functions that answer the decisions the rules leave to a player."""

"""Card and rules data: the vocabulary, set files, mixes, variants, card changes and run specs.

Everything here turns text a designer writes (``configs/``) or a command line
into validated Python values and integer tables for the kernel; nothing here
plays a game.
"""

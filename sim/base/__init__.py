"""The bottom layer: declarations every other layer reads (vocabulary, state and table layouts).

Nothing here imports the rest of the project, so data, the kernel, the strategies, the
runner and the analysis can all import it without a cycle.
"""

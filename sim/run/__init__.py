"""Playing games: the engine (one compiled run), the runner (chunks, threads,
progress), Parquet output, and the Scenario stepper used by rule tests and replays.
"""

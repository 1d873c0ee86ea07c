"""The execution engine: how a run of a definition moves from step to step."""

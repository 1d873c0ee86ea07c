"""Steps: reviewer decisions, agent resolutions, overrides and cancellation of one step."""

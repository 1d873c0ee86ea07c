"""The automatic node types' side effects: a notification, a webhook call, an agent run. Each
runner takes a node's config and a `StepRun` and returns a `NodeOutcome` for the engine to
record; none of them touches the database."""

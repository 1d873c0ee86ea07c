"""Workflow definitions without storage: the request and view models, the linter that refuses a
definition the engine could not run, and the compiler that derives the runtime graph."""

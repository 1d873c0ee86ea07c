"""The repository's own scripts. A package so that one with modules of its own runs from the
repository root as `python -m scripts.<name>`; single-file scripts still run by their path."""

"""What every feature of the comments service builds on: the annotation row and its core SQL,
the one derivation of its filter columns from its body, who sees an annotation, what a caller may
write, the fields every event carries, the request fields more than one endpoint takes, and the
rules of a new comment."""

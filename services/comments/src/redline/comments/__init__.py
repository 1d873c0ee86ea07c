"""Comment annotations, comments, reactions and suggestions."""

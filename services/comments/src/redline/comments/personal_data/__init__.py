"""Personal data in comment annotations: what a user wrote, reacted and was named in."""

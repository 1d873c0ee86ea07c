"""Personal data: exporting and erasing what every service holds about a user."""

"""The comments of one annotation: adding, reading, editing and deleting them."""

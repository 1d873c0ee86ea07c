"""The memory service: a knowledge base, judgment memory, patterns and ask."""

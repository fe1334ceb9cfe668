"""Code shared by tests/ and bench/ (neither imports the other): importable from the repository root."""

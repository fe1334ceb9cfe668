"""Privacy requests: one person's data exported or erased across every area (issue 28)."""

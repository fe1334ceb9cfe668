"""platformctl command groups, one module each."""

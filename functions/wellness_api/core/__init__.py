"""What every area shares, and nothing area-specific."""

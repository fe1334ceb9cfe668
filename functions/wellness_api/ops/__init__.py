"""Operator tooling: the `bin/platformctl` CLI and the demo world."""

"""Operator tooling: the `bin/platformctl` CLI, tenant provisioning and the demo world."""

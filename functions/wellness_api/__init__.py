"""Multi-tenant wellness platform API: one package per area of the spec, shared code in core."""

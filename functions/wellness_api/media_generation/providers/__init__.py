"""Media providers behind one interface: the local generator (offline, the default) and vendor adapters."""

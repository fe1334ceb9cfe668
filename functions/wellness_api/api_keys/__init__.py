"""Client API keys (spec 4.7, 2.11, 3.4): several overlapping server keys per client."""

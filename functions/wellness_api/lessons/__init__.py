"""Lessons (spec 4.1, 2.1-2.5, 3.5, 7.3): the app lesson list and the B2B lesson catalog."""

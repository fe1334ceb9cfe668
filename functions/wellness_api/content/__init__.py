"""Content (spec 4.4, 2.8, 9.5): multilingual items with categories, permissions and versions, and /ct pages."""

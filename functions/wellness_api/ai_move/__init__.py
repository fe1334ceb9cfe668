"""AI Move (spec 4.6, 2.9, 2.10, 3.1, 7.5): the exercise catalog, sessions, statistics and admin records."""

"""Vital Scan (spec 4.8, 2.12, 3.2, 7.6, part 8; CONTRACT 3 and 4): the partner API, its point account,
its rate limits and the hosted-session lifecycle."""

"""Identity (spec 4.2): custom tokens, token exchange, guest sign-in, set-claims and the client token."""

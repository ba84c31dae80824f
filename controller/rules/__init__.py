"""Pure rules engines for Backgammon and Mensch ärgere Dich nicht (no I/O, no clock)."""

"""The table's brain: rules engines, referee, journal, simulator and command line."""

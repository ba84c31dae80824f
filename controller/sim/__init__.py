"""Simulated table: bots that roll and move, producing the events a real table produces."""

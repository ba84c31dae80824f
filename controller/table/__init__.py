"""The table program (the shell): frames and the table's inputs in, the referee's signals out
to the seat LEDs, the display and the terminal, with the journal underneath.

`pipeline.py` is the deterministic heart (frame → Observation → events → referee → signals),
`app.py` the loop and the faults a table survives, `wiring.py` makes every part from the
configuration; docs/architecture.md maps the rest.
"""

"""The one simulator: players who roll, move (sometimes illegally), take their time and use the
buttons as people do (`table.py`), shown to the table straight or filmed by its camera
(`session.py`, `camera.py`)."""

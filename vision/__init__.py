"""The table's eyes: calibration, board geometry, pieces, dice, stabilizer and renderer."""

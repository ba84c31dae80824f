"""The table's hands and voice: pin map, LEDs, buzzer, buttons, sensors, display link, cameras."""

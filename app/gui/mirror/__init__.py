"""The live mirror of the phone: frames, control boxes, the proposal drawn on it, touch and manual input."""

"""A simulated Android phone served over the real ADB host protocol (no Qt)."""

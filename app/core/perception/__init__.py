"""Perception: uiautomator hierarchy to controls, set-of-mark annotation, screen diff."""

"""The window's Skills panel: the saved skills, their steps, and editing them as YAML."""

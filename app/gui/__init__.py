"""PySide6 widgets: the desktop app. Talks to app.core only."""

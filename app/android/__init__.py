"""Android facts that both `app.core` and `app.virtual_phone` need (key codes, …).

A small leaf package: it imports nothing from `app.core`, `app.virtual_phone` or `app.gui`,
so the core and the virtual phone can share it without importing each other.
"""

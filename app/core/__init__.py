"""Plain-Python core of Agent Desk. Never imports Qt (see tests/core/test_no_qt.py)."""

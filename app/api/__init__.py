"""The task API: other programs give the desk tasks over local HTTP (and MCP on top of it).

A face of the run service like the window and the console: it asks the run service for runs
and reads their event streams; it never assembles a run itself.
"""

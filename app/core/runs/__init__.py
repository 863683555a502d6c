"""Runs: the one way to start, watch, answer, pause, stop and list runs (the run service), and their record on disk.

Every face (window, command line, benchmarks, tests, the coming HTTP API) asks the
`RunService`; nothing else assembles a run or drives a phone.
"""

"""Agent Desk: supervised automation of Android phones by an LLM."""

__version__ = "0.1.0"

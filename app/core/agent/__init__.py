"""The agent engine: states, the 4-phase step processor, models, supervision, trajectories."""

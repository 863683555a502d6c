"""Learning from past runs (seed 003): replay, skills, the screens graph's data, export."""

"""Runs as the person sees them: the request, approval, the timeline, step detail and past runs."""

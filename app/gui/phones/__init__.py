"""Phones: the list of attached phones and the window's side of the phone session."""

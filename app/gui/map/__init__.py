"""The Map of screens: each app's screens and the actions between them, as the agent learned them."""

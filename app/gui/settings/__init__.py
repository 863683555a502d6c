"""The settings dialog: provider presets, the form and its editors."""

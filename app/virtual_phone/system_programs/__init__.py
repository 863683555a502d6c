"""The phone's command-line programs (input, am, pm, wm, dumpsys, settings, ...), one module per tool.

`app.virtual_phone.programs` maps each command name to its function here.
"""

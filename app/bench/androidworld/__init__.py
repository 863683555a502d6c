"""AndroidWorld (Google's benchmark of phone agents) as Agent Desk's yardstick: its own tasks set the phone up and
its own checkers judge the runs. `source` finds and imports AndroidWorld (never copied into the project);
`environment` is the `env` its task code is given, on any phone an ADB server reaches."""

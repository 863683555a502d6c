"""The bundle's entry point: the desktop app, or with arguments the `agentdesk` command line
(e.g. `AgentDesk --self-test`, `AgentDesk devices`)."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())

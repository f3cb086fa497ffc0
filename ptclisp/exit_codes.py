"""Exit classes of the agent-running commands (one definition; docs: README "Exit codes")."""
OK = 0
USAGE = 2
INVALID_DOCUMENT = 3
PROVIDER_NOT_READY = 4
RUN_FAILED = 5
LIMIT_HIT = 6
OUTPUT_FAILED = 7

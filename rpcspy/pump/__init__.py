"""The I/O ring: the agent process, the pipes, signals and the observer hub."""

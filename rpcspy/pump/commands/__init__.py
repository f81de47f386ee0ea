"""The processes one command drives: the fake agent and fake client (replay), the conform runner, the model
server, drive and demo; and what commands share: a whole output file, a pool of worker processes."""

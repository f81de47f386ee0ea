"""`python -m rpcspy` runs the command-line interface."""

from rpcspy.cli import main

if __name__ == "__main__":
    main()

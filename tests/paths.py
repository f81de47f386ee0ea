"""Where the test inputs live: everything the suite reads is inside the checkout."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
"""Real transcripts of pi 0.73.1, pi 0.87.1 and omp 18.2.3 traffic (see tests/data/README.md)."""

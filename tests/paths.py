"""Where the shared material lives: ``shared/`` beside the checkout (override: RPCSPY_SHARED)."""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RPCSPY_SHARED", REPO.parent / "shared"))

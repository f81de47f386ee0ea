"""Check results as SARIF 2.1.0, for code-scanning UIs (GitHub, GitLab, Azure DevOps) (pure).

One run, the rule catalogue as the tool's rules (id, summary, the explanation as help,
the default severity as level), one result per finding: its rule, level (``error``,
``warning``, ``note`` for info), message, the recording as the artifact with the frame's
line as region (``lines``: seq -> line, read by :mod:`rpcspy.recording.lines`; line 1, the
header, for findings about the session), the frame as a logical location, and a
``partialFingerprints`` entry from the baseline key (rule and location, not the frame
number), so an alert keeps its identity across runs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rpcspy.checker.baseline import fingerprint, key
from rpcspy.checker.report import Result
from rpcspy.checker.rules import RULES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _rules() -> list[dict[str, Any]]:
    return [{"id": r.id, "name": r.id.replace(".", "/"), "shortDescription": {"text": r.summary},
             "fullDescription": {"text": r.explanation}, "help": {"text": r.explanation},
             "defaultConfiguration": {"level": LEVELS[r.severity]},
             "properties": {"group": r.group, "tags": ["protocol", r.group]}}
            for r in RULES.values()]


def sarif(results: list[Result], lines: dict[str, dict[int, int]], version: str) -> dict[str, Any]:
    """The SARIF log of ``results``; ``lines[path][seq]`` is the line of frame ``seq`` in ``path``."""
    index = {rule_id: n for n, rule_id in enumerate(RULES)}
    out: list[dict[str, Any]] = []
    for r in results:
        seen: Counter[str] = Counter()
        where = lines.get(r.path, {})
        for f in r.findings:
            fp = fingerprint(key(r.path, f))
            seen[fp] += 1
            line = where.get(f.frame, 1) if f.frame is not None else 1
            result: dict[str, Any] = {
                "ruleId": f.rule, "level": LEVELS[f.severity], "message": {"text": f.message},
                "locations": [{
                    "physicalLocation": {"artifactLocation": {"uri": r.path}, "region": {"startLine": line}},
                    "logicalLocations": [{"name": f"frame {f.frame}" if f.frame is not None else "session",
                                          "kind": "object"}],
                }],
                "partialFingerprints": {"rpcspyFinding/v1": f"{fp}:{seen[fp]}"},
                "properties": {"frame": f.frame, "dir": f.dir, "jsonPath": f.path, "dialect": r.dialect},
            }
            if f.rule in index:
                result["ruleIndex"] = index[f.rule]
            out.append(result)
    return {
        "$schema": SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "rpcspy", "version": version,
                                "rules": _rules()}},
            "artifacts": [{"location": {"uri": r.path}} for r in results],
            "results": out,
            "columnKind": "unicodeCodePoints",
        }],
    }

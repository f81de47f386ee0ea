"""Findings a team has accepted, and what is new or gone since (pure).

A baseline is a JSON file (``rpcspy check --write-baseline FILE`` writes one): each entry
names a finding by **rule and location**, the recording's path as given on the command line,
the direction, the JSON path inside the frame, and the message with its numbers blanked
(frame numbers, ids, times and counts change from run to run; the finding does not), with
how many such findings were accepted. :func:`compare` splits a check's findings into the
accepted and the **new** ones (an entry accepts at most its count), and lists the entries
nothing matched any more as **stale**: fixed, so the baseline can shrink.

```json
{"format": "rpcspy-baseline", "version": 1,
 "entries": [{"file": "ci/basic.jsonl", "rule": "framing.crlf", "dir": "c2a", "path": null,
              "message": "line ends in CR LF", "count": 2}]}
```
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rpcspy.events import Finding

FORMAT = "rpcspy-baseline"
VERSION = 1
_NUMBER = re.compile(r"\d+(?:\.\d+)?")

Key = tuple[str, str, str, str, str]
"""(file, rule, dir, path, message with numbers blanked)"""


class BaselineError(ValueError):
    """The baseline file is not one this rpcspy reads."""


def key(file: str, f: Finding) -> Key:
    """What identifies a finding across runs: rule and location, not its frame number."""
    return (file, f.rule, f.dir or "", f.path or "", _NUMBER.sub("#", f.message))


def fingerprint(k: Key) -> str:
    """A short stable hash of a key (SARIF's partialFingerprints use it)."""
    return hashlib.sha256("\x00".join(k).encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass
class Comparison:
    """One check against a baseline."""

    new: dict[str, list[Finding]] = field(default_factory=dict)
    """file -> its findings the baseline does not accept, in order"""
    accepted: int = 0
    stale: list[dict[str, Any]] = field(default_factory=list)
    """baseline entries (with the count left unmatched) that no finding matched"""


def entries_of(text: str, fmt: str = FORMAT, version: int = VERSION) -> list[Any]:
    """The ``entries`` of a baseline file of format ``fmt`` (this one, or conform's), checked for its shape."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise BaselineError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise BaselineError(f"not an rpcspy baseline (no \"format\": \"{fmt}\")")
    if not isinstance(doc.get("version"), int) or doc["version"] > version:
        raise BaselineError(f"baseline version {doc.get('version')!r}: this rpcspy reads version {version}")
    entries = doc.get("entries")
    if not isinstance(entries, list):
        raise BaselineError("\"entries\" is not a list")
    return entries


def dump_entries(lines: list[str], fmt: str = FORMAT, version: int = VERSION) -> str:
    """A baseline file: its format and version, then one entry (already JSON) a line, so diffs review well."""
    if not lines:
        return f'{{"format": "{fmt}", "version": {version}, "entries": []}}\n'
    body = ",\n  ".join(lines)
    return f'{{"format": "{fmt}", "version": {version},\n "entries": [\n  {body}\n ]}}\n'


def load(text: str) -> Counter[Key]:
    """The accepted findings of a baseline file's text."""
    entries = entries_of(text)
    out: Counter[Key] = Counter()
    for n, e in enumerate(entries, start=1):
        try:
            k: Key = (str(e["file"]), str(e["rule"]), str(e.get("dir") or ""), str(e.get("path") or ""),
                      str(e["message"]))
            count = int(e.get("count", 1))
        except (KeyError, TypeError, ValueError):
            raise BaselineError(f"entry {n} lacks file, rule or message") from None
        out[k] += max(count, 0)
    return out


def dump(findings: dict[str, list[Finding]]) -> str:
    """A baseline accepting every finding given (file -> findings), sorted, one entry per line."""
    counts: Counter[Key] = Counter(key(file, f) for file, fs in findings.items() for f in fs)
    lines = [json.dumps({"file": k[0], "rule": k[1], "dir": k[2] or None, "path": k[3] or None, "message": k[4],
                         "count": n}, ensure_ascii=False)
             for k, n in sorted(counts.items())]
    return dump_entries(lines)


def compare(findings: dict[str, list[Finding]], accepted: Counter[Key]) -> Comparison:
    """Split ``findings`` (file -> findings; every file checked, those without findings too) by what
    ``accepted`` allows; list what it holds in vain for the files checked (entries of files not
    checked this time are not stale)."""
    left = Counter(accepted)
    out = Comparison()
    for file, fs in findings.items():
        fresh = out.new.setdefault(file, [])
        for f in fs:
            k = key(file, f)
            if left[k] > 0:
                left[k] -= 1
                out.accepted += 1
            else:
                fresh.append(f)
    for k, n in sorted(left.items()):
        if n > 0 and k[0] in findings:
            out.stale.append({"file": k[0], "rule": k[1], "dir": k[2] or None, "path": k[3] or None,
                              "message": k[4], "count": n})
    return out

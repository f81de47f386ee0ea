"""Mutations of a recording's bytes for the reader fuzz: damaged bytes and lines, and structured ones.

Used through tests/support/fuzz_readers.py (:func:`mutate`): by the hypothesis fuzz in the suite
and the long run in bench/fuzz_readers.py.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable


# --- mutations ----------------------------------------------------------------------------------
def _deep(n: int, rng: random.Random) -> bytes:
    open_, close = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
    return open_ * n + b"1" + close * n


def _values(rng: random.Random) -> list[bytes]:
    return [b"null", b"[]", b'["a",1]', b"{}", b"1e999", b"-0", b"123456789012345678901234567890", b'"\\ud800"',
            b'"x"', b"true", _deep(rng.choice([50, 400, 900, 999, 1000, 1001, 5000, 100_000]), rng), b'"' + b"x" * 70_000 + b'"',
            b'{"type":[1,2]}', b'"\xff\xfe"', b'"\xe2\x80\xa8"']


def _replace_value(line: bytes, rng: random.Random) -> bytes:
    """Replace the value after a random key with a hostile one."""
    keys = [i for i in range(len(line)) if line[i:i + 2] == b'":']
    if not keys:
        return line
    start = rng.choice(keys) + 2
    end = start
    depth = 0
    in_str = False
    while end < len(line):  # skip one JSON value, roughly
        c = line[end:end + 1]
        if in_str:
            if c == b"\\":
                end += 1
            elif c == b'"':
                in_str = False
        elif c == b'"':
            in_str = True
        elif c in b"[{":
            depth += 1
        elif c in b"]}":
            if depth == 0:
                break
            depth -= 1
        elif c == b"," and depth == 0:
            break
        end += 1
    return line[:start] + rng.choice(_values(rng)) + line[end:]


def _flip(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        b[rng.randrange(len(b))] = rng.choice([0, 0x0A, 0x0D, 0x22, 0x5C, 0x7B, 0x7D, 0xFF, 0xC0, 0xE2,
                                               rng.randrange(256)])
    return bytes(b)


def _insert(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    junk = rng.choice([b"\xff\xfe\xfd", b"\x00" * 10, b"\r", b"\n", b"\n\n\n", b"\xe2\x80\xa8", b"\xef\xbb\xbf",
                       b'{"kind":"frame"}\n', b'{"kind":"exit","seq":"x"}\n', b"[[[[[[[[", b'"', b"\\"])
    return data[:at] + junk + data[at:]


def _lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    op = rng.choice(["delete", "duplicate", "swap", "value", "value", "value", "header", "kind"])
    i = rng.randrange(len(lines))
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    elif op == "swap":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "header":
        lines[0] = _replace_value(lines[0], rng)
    elif op == "kind":
        kind = rng.choice([b"frame", b"exit", b"eof", b"note", b"finding", b"start", b"spawn_failed", b"zzz"])
        lines[i] = b'{"kind":"' + kind + b'","seq":' + rng.choice([b"1", b"-1", b'"1"', b"1e400", b"null"]) + \
            b',"t":' + rng.choice([b"0.5", b"-1", b"1e308", b'"x"', b"NaN"]) + b',"dir":' + \
            rng.choice([b'"c2a"', b'"a2c"', b'"err"', b'"up"', b"1"]) + b"," + \
            rng.choice([b'"json":{"type":"prompt","id":"1","message":"x"}', b'"json":' + rng.choice(_values(rng)),
                        b'"text":"\\udc80"', b'"b64":"!!!"', b'"b64":"AAAA"', b'"code":"x"', b'"code":1',
                        b'"level":1,"text":2', b'"rule":"x","severity":"bad","group":1,"message":null']) + b"}"
    else:
        lines[i] = _replace_value(lines[i], rng)
    return b"\n".join(lines)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def _whole(data: bytes, rng: random.Random) -> bytes:
    return rng.choice([b"", b"\n", b"   \n\n", b"\x00" * 4096, b"{", b"[]\n", b"null\n", b'{"format":"rpcspy-recording"}\n',
                       b'{"format":"rpcspy-recording","version":99}\n', b'{"t":1,"dir":"in","raw":5}\n',
                       b">> " + _deep(5000, rng) + b"\n", data.split(b"\n", 1)[0] + b"\n",
                       data.split(b"\n", 1)[0] + b"\n" + _deep(100_000, rng) + b"\n"])


# --- structured mutations: every field of the format -------------------------------------------
def _hostile(rng: random.Random) -> object:
    """A value of the wrong type, size or range for wherever it lands."""
    return rng.choice([
        None, True, False, 0, -1, 1.5, -0.0, 2**63, 2**64 + 1, -(2**63) - 1, 2**70, 10**400, -(10**400), 1e308,
        -1e308, 5e-324, "", "x", "\ud800", "\udc80", "a\ud800b", "\udfff\ud800", "\x00", "\u2028", "\x1b]0;t\x07", "💥",
        "-1", "NaN", "c2a", "a2c", "err", "frame", "response", "A" * rng.choice([300, 70_000]), [], {}, [1, [2]],
        {"a": 1}, {"type": "response"}, ["response"], [[[[[]]]]], {"id": 2**70, "type": None},
    ])


def _paths(value: object, here: tuple = ()) -> list[tuple]:
    """Every JSON path in ``value`` (keys and indexes), the root included."""
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:50]):
            out += _paths(v, (*here, i))
    return out


def _set(value: object, path: tuple, new: object) -> object:
    if not path:
        return new
    parent: object = value
    for step in path[:-1]:
        parent = parent[step]  # type: ignore[index]
    parent[path[-1]] = new  # type: ignore[index]
    return value


def _dumps(value: object, rng: random.Random) -> bytes:
    """JSON text of ``value``: ASCII-escaped or raw UTF-8 (raw when it can be), sometimes with blanks."""
    try:
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5, separators=rng.choice([(",", ":"), (", ", ": ")]))
        return text.encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        return json.dumps(value).encode()


def _typed(data: bytes, rng: random.Random) -> bytes:
    """One value at a random JSON path of a random line (the header too) replaced by a hostile one."""
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    try:
        value = json.loads(lines[i])
    except (ValueError, RecursionError):
        return data
    for _ in range(rng.randint(1, 3)):
        paths = _paths(value)
        value = _set(value, rng.choice(paths[1:] or paths), _hostile(rng))
    lines[i] = _dumps(value, rng)
    return b"\n".join(lines)


_KEY = re.compile(rb'"([A-Za-z_]{1,20})":')


def _dupkey(data: bytes, rng: random.Random) -> bytes:
    """A key said twice in one object: a hostile value before the real one, or after it."""
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    keys = list(_KEY.finditer(lines[i]))
    if not keys:
        return data
    m = rng.choice(keys)
    dup = b'"' + m.group(1) + b'":' + _dumps(_hostile(rng), rng) + b","
    line = lines[i][:m.start()] + dup + lines[i][m.start():]
    lines[i] = _replace_value(line, rng) if rng.random() < 0.3 else line
    return b"\n".join(lines)


def _glue(data: bytes, rng: random.Random) -> bytes:
    """Two lines glued as the block reader joins them (``],[``), and a value split over two lines
    elsewhere, so that the count of values still equals the count of lines."""
    lines = data.split(b"\n")
    if len(lines) < 4:
        return data
    i = rng.randrange(1, len(lines) - 1)
    glued = lines[i] + rng.choice([b"],[", b"] , [", b"],\t["]) + lines[i + 1]
    lines[i:i + 2] = [glued]
    j = rng.randrange(1, len(lines))
    cuts = [m.end() for m in re.finditer(rb"[,:\[{]", lines[j])]
    if cuts:
        at = rng.choice(cuts)
        lines[j:j + 1] = [lines[j][:at], lines[j][at:]]
    return b"\n".join(lines)


def _surrogate_transcript(data: bytes, rng: random.Random) -> bytes:
    """A structured transcript record whose ``raw`` holds lone surrogate escapes or hostile types."""
    raw = rng.choice([b'"\\ud800"', b'"a\\udc80b"', b'"\\udfff\\ud800{}"', b"5", b"null", b'"' + b"x" * 10 + b'"'])
    t = rng.choice([b"0", b"1e308", b"-1e308", b"1e999", b"NaN", b'"x"', b"123456789012345678901234567890"])
    d = rng.choice([b'"in"', b'"out"', b'"err"', b'"note"', b"1"])
    recs = [b'{"t":' + t + b',"dir":' + d + b',"raw":' + raw + b"}" for _ in range(rng.randint(1, 4))]
    return b'{"t":0,"dir":"in","raw":"{\\"type\\":\\"get_state\\",\\"id\\":\\"1\\"}"}\n' + b"\n".join(recs) + b"\n"


MUTATORS: tuple[Callable[[bytes, random.Random], bytes], ...] = (
    _flip, _insert, _lines, _lines, _lines, _truncate, _whole, _typed, _typed, _typed, _typed, _dupkey, _dupkey, _glue,
    _surrogate_transcript)


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random mutations of a recording's bytes."""
    for _ in range(rng.randint(1, 3)):
        data = rng.choice(MUTATORS)(data, rng)
    return data

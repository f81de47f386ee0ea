"""Turning a recording into a stable regression fixture (pure transform of entries).

The fixture is an ordinary recording: same header (with ``source`` set and the
volatile header fields reset), every frame, note and finding normalised with one
stable :class:`~rpcspy.normalise.normaliser.Normaliser` (so correlations survive), and
a first note entry that records the options, which ``replay`` reads back to apply
the same normalisation (including ``--redact`` patterns) to live frames.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import msgspec

from rpcspy.events import Eof, Exit, Finding, Frame, Note, Start
from rpcspy.framing import DECODE_ERRORS
from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
from rpcspy.normalise.secrets import known_order
from rpcspy.recording.format import FrameEntry, Header, encode_entry, encode_frame

NOTE_PREFIX = "rpcspy fixture: "
_WS = frozenset(b" \t\r\n")
"""JSON's blanks: a frame with them around its value is not embedded (see ``format.frame_pieces``)."""


class FixtureSettings(msgspec.Struct, kw_only=True):
    """What ``fixture`` did, stored in the fixture's first note."""

    usage: bool = False
    redact: list[str] = []
    compact_partials: bool = False
    secrets: bool = False
    """Secrets that are not token-shaped were redacted (absent, so False, in older fixtures)."""


def settings_note(options: NormaliseOptions) -> Note:
    settings = FixtureSettings(usage=options.usage, redact=list(options.redact),
                               compact_partials=options.compact_partials, secrets=options.secrets)
    return Note(seq=0, t=0.0, level="info", text=NOTE_PREFIX + msgspec.json.encode(settings).decode())


def parse_settings(text: str) -> NormaliseOptions | None:
    """Options from a fixture note's text, or None when it is not one."""
    if not text.startswith(NOTE_PREFIX):
        return None
    try:
        s = msgspec.json.decode(text[len(NOTE_PREFIX):], type=FixtureSettings)
    except DECODE_ERRORS:
        return None
    return NormaliseOptions(usage=s.usage, redact=tuple(s.redact), compact_partials=s.compact_partials,
                            secrets=s.secrets)


def fixture_header(header: Header, norm: Normaliser, source: str) -> Header:
    return Header(
        format=header.format, version=header.version, rpcspy=header.rpcspy,
        argv=[norm.text(a) for a in header.argv], cwd=norm.text(header.cwd),
        started="2000-01-01T00:00:00.000000Z", started_unix=946684800.0, pid=0,
        mode=header.mode, source=source,
    )


def known_secrets(header: Header, entries: Iterable[msgspec.Struct], options: NormaliseOptions,
                  *, transcript: bool = False) -> tuple[str, ...]:
    """The first pass of a fixture with ``options.secrets``: every secret value a rule recognises
    anywhere in the recording, for :func:`fixture_lines` to redact wherever else it occurs
    ("password=hunter2" in a prompt, then "hunter2" alone in the agent's reply)."""
    if not options.secrets:
        return ()
    found: set[str] = set()
    for _ in fixture_lines(header, entries, options, source="", transcript=transcript,
                           _norm=Normaliser(options, stable=True, found=found)):
        pass
    return known_order(found)


def fixture_lines(header: Header, entries: Iterable[msgspec.Struct], options: NormaliseOptions,
                  *, source: str, transcript: bool = False, known: tuple[str, ...] = (),
                  _norm: Normaliser | None = None) -> Iterator[bytes]:
    """The fixture's lines (with LF): header, settings note, then each entry normalised.

    ``transcript``: the entries come from a shared pi transcript, whose harness notes
    "closing stdin (EOF)" and "exit code: N" become real eof and exit entries. ``known``: secret
    values (from :func:`known_secrets`) redacted wherever they occur; they are not stored.
    """
    norm = _norm or Normaliser(options, stable=True, known=known)
    yield encode_entry(fixture_header(header, norm, source))
    yield encode_entry(settings_note(options))
    for entry in entries:
        if transcript and isinstance(entry, Note):
            if entry.text.startswith("closing stdin (EOF)"):
                yield encode_entry(Eof(seq=entry.seq, t=entry.t, dir="c2a"))
                continue
            if entry.text.startswith("exit code: ") and entry.text[11:].strip().lstrip("-").isdigit():
                yield encode_entry(Exit(seq=entry.seq, t=entry.t, code=int(entry.text[11:].strip())))
                continue
        if isinstance(entry, FrameEntry):
            frame = entry.to_frame()
            data = norm.frame(frame.data)
            # one pass: the normaliser's decode already proved JSON (UTF-8 checked); its encoding has no blanks
            embed = (norm.changed or (data[0] not in _WS and data[-1] not in _WS)) if norm.json else None
            yield encode_frame(Frame(frame.seq, frame.t, frame.dir, data, frame.nl, frame.cr, frame.injected), embed)
        elif isinstance(entry, Note):
            if entry.text.startswith(NOTE_PREFIX):
                continue  # re-fixturing: the new settings note replaces the old
            yield encode_entry(Note(seq=entry.seq, t=entry.t, level=entry.level, text=norm.text(entry.text),
                                     dir=entry.dir, dropped_bytes=entry.dropped_bytes))
        elif isinstance(entry, Finding):
            yield encode_entry(Finding(
                seq=entry.seq, t=entry.t, rule=entry.rule, severity=entry.severity, group=entry.group,
                message=norm.text(entry.message), frame=entry.frame, dir=entry.dir, path=entry.path,
                related=entry.related, extra=norm.value(entry.extra),
            ))
        elif isinstance(entry, Start):
            yield encode_entry(Start(seq=entry.seq, t=entry.t, pid=0, argv=[norm.text(a) for a in entry.argv]))
        elif isinstance(entry, msgspec.Struct) and hasattr(entry, "__struct_config__") \
                and entry.__struct_config__.tag is not None:
            yield encode_entry(entry)
        # UnknownEntry (a newer format's kinds) is dropped: a fixture only holds what this version understands


def read_fixture_options(path: str, *, look: int = 5) -> NormaliseOptions | None:
    """The settings a fixture was made with (from its first entries), or None."""
    from rpcspy.recording.reader import open_recording

    rec = open_recording(path)
    if rec.kind != "rpcspy":
        return None
    for i, entry in enumerate(rec.entries()):
        if isinstance(entry, Note):
            got = parse_settings(entry.text)
            if got is not None:
                return got
        if i >= look:
            break
    return None

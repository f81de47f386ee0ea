"""The rule catalogue: every finding the checker can emit, with its fix.

Each rule has a stable id ``group.name``, a default severity (in the spirit of
Wireshark's expert info: ``error`` breaks the protocol, ``warning`` is a hazard
or a known bug, ``info`` is worth knowing), a one-line summary and an
explanation that says how to fix the cause. ``docs/rules.md`` is generated
from this table (``rpcspy rules --format markdown``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}
GROUPS: tuple[str, ...] = ("framing", "schema", "correlation", "lifecycle", "stream", "misuse", "acp", "recording",
                           "checker")


@dataclass(frozen=True, slots=True)
class Rule:
    """One entry of the catalogue."""

    id: str
    severity: Severity
    group: str
    summary: str
    explanation: str


def _r(id: str, severity: Severity, summary: str, explanation: str) -> Rule:
    return Rule(id, severity, id.split(".", 1)[0], summary, " ".join(explanation.split()))


_CATALOGUE: tuple[Rule, ...] = (
    # ---- framing: the raw bytes of one line -------------------------------------------------
    _r("framing.not_json", "error", "A frame is not valid JSON.",
       """Every line must be exactly one JSON value. pi answers an unparsable stdin line with an
       id-less `{"command":"parse","success":false}` response that cannot be correlated with the
       request; an unparsable stdout line breaks every client. Fix: serialise each frame with a JSON
       encoder and write it followed by a single LF; never write partial lines or log text to the pipe."""),
    _r("framing.not_object", "error", "A frame is valid JSON but not an object.",
       """Commands, responses and events are JSON objects. pi answers a number, string, array or boolean
       on stdin with an id-less `"Unknown command: undefined"` error. Fix: send `{"type": ...}` objects only."""),
    _r("framing.blank_line", "warning", "An empty or whitespace-only line.",
       """pi (every version so far) does not skip blank lines: each one is answered with an id-less `parse` error
       response (omp skips them silently). Fix: do not write empty lines or stray newlines; terminate each
       frame with exactly one LF."""),
    _r("framing.crlf", "warning", "A line ends in CR LF.",
       """The protocol delimiter is LF alone. pi strips one trailing CR before parsing, but readers that
       split on LF only see a `\\r` at the end of the JSON text. Fix: write `\\n`, not `\\r\\n` (on Windows,
       open the pipe in binary mode)."""),
    _r("framing.bom", "error", "A line starts with a UTF-8 byte order mark.",
       """A BOM (EF BB BF) is not JSON whitespace: pi answers the line with a `parse` error. Fix: encode
       as UTF-8 without BOM (Python: `utf-8`, not `utf-8-sig`; .NET: `new UTF8Encoding(false)`)."""),
    _r("framing.invalid_utf8", "error", "A line contains bytes that are not valid UTF-8.",
       """pi decodes stdin with replacement: invalid bytes silently become U+FFFD and the command still
       runs with corrupted text; strict readers (msgspec, serde) refuse the whole frame. Fix: encode all
       text as UTF-8; do not write raw bytes from files or terminals into JSON strings."""),
    _r("framing.truncated", "warning", "The last frame of a direction ended without LF.",
       """The stream ended in the middle of a line. pi still executes a final stdin line without LF at
       EOF, but other agents and most line readers drop it; on stdout it means the agent died or was
       killed mid-write. Fix: terminate every frame with LF and flush before closing the pipe."""),
    _r("framing.line_separator", "info", "A frame contains a raw U+2028 or U+2029.",
       """Legal inside JSON strings and written raw by pi, but line readers that treat U+2028/U+2029 as
       line breaks (Node `readline`, Python `str.splitlines()`) cut the frame in two. Fix for clients:
       split the byte stream on `\\n` only. Fix for writers: escape them as `\\u2028`/`\\u2029`."""),
    _r("framing.over_64k", "info", "A frame is larger than 64 KiB.",
       """Normal for pi 0.73 `message_update` frames (they carry the whole partial message twice), but
       64 KiB is the default line limit of Python's `asyncio.StreamReader.readline()` and of several
       other line readers, which then fail. Fix for clients: read lines without a size limit."""),
    _r("framing.over_1m", "warning", "A frame is larger than 1 MiB.",
       """omp caps frames at 1 MiB and many JSONL readers and loggers have limits at this size; frames
       this large also stall slow clients. Fix for clients: send large payloads (images, files) by
       reference; for agents: chunk or shrink oversized frames."""),
    _r("framing.too_deep", "warning", "A frame is nested too deeply to decode.",
       """The JSON nests arrays or objects about 1000 levels deep or more: legal JSON, but beyond the
       limits of common decoders (msgspec and Python's `json` stop near 1000 levels, serde_json at 128),
       which refuse the whole frame. rpcspy checks only its top-level members (so the `id` still
       correlates) and skips its schema. Fix: flatten the data, or send deep structures as a string."""),
    # ---- schema: shape of one decoded object ---------------------------------------------------
    _r("schema.unknown_type", "error", "Unknown command or event `type`.",
       """The `type` is not part of the protocol dialect in use. On stdin pi answers an unknown command
       with an error (pi 0.73 without echoing the `id`); on stdout the client does not know how to handle
       the event. Fix: check the command name against the dialect (`rpcspy schema`), e.g. omp's `branch`
       is pi's `fork`; pass `--dialect` if auto-detection chose wrongly."""),
    _r("schema.unknown_agent_type", "info", "An agent frame type (or command) the dialect does not know.",
       """The agent sent a frame `type`, or answered a command with success, that the dialect in use does
       not define: most likely a newer agent than rpcspy knows, so it is reported at info and not as an
       error (a client frame of an unknown type stays `schema.unknown_type`). `--strict-unknown` makes it
       an error (and unknown fields warnings). Fix: check `--dialect`; upgrade rpcspy; to add the agent
       version, see docs/dialects.md."""),
    _r("schema.missing_field", "error", "A required field is missing.",
       """pi validates nothing: a missing field reaches the implementation as `undefined`, giving
       confusing errors (`Cannot read properties of undefined`) or, for `bash`, running the literal word
       `undefined`. Fix: send every required field listed by `rpcspy schema`."""),
    _r("schema.wrong_type", "error", "A field has the wrong JSON type.",
       """pi does not check types: a wrong type is used as is, may be persisted to `settings.json` and
       echoed back later (`"followUpMode":42`). Fix: send the documented type (see the JSON path)."""),
    _r("schema.bad_enum", "error", "A field has a value outside its enumeration.",
       """pi accepts and persists invalid enum values (`"steeringMode":"bogus"` is saved to settings and
       returned by `get_state` forever after); `streamingBehavior:"bogus"` silently acts as `steer`.
       Fix: send one of the documented values; on stdout this usually echoes an earlier bad command."""),
    _r("schema.unknown_field", "info", "A field the schema does not know.",
       """Agents add fields over time and pi ignores unknown command fields, so this is tolerated by
       default (`--strict-fields` makes it a warning). On stdin it often means a misspelt optional field
       that is then silently ignored (e.g. `streaming_behavior`). Fix: check the spelling of the field."""),
    _r("schema.invalid", "error", "A frame does not match the schema.",
       """A schema violation that is not a missing field, wrong type or bad enum (for example a value
       out of range or an invalid combination). The message carries the validator's explanation and the
       JSON path. Fix: compare the frame with `rpcspy schema`."""),
    # ---- correlation: requests and their responses ---------------------------------------------
    _r("correlation.unknown_id", "error", "A response (or bash update) carries an id that was never sent.",
       """The agent answered an `id` no command used. Either the agent is buggy or frames were lost or
       reordered before rpcspy. Fix: correlate by `id` only, never by position; check for a proxy or
       wrapper that rewrites ids."""),
    _r("correlation.duplicate_response", "error", "A second response to the same command id.",
       """Exactly one response per command is expected (omp's documented success-then-error for a
       `prompt` sent while streaming is exempt). A client that resolves a promise per id will drop or
       misroute the second one. Fix (agent): answer once; (client): use unique ids per command."""),
    _r("correlation.unanswered", "warning", "A command was never answered.",
       """No response with this `id` arrived by the end of the session (or within `unanswered_after`
       seconds when checking live). pi leaves commands unanswered when it exits or its stdin closes
       while they are pending (a `prompt` running an extension command that waits on a dialog, commands
       sent after a crash or `ctx.shutdown()`). Fix: wait for responses before closing stdin, answer
       pending dialogs, and time out requests in the client."""),
    _r("correlation.forgotten", "warning", "So many commands waited unanswered that the oldest were forgotten.",
       """The checker keeps at most 65,536 commands waiting for an answer (a session whose agent never
       answers must not grow rpcspy's memory without end). Past that, the oldest are forgotten: a late
       answer to one of them is reported as `correlation.unknown_id`, and they are not reported as
       unanswered at the end. Said when it first happens, and with the total at the end of the session.
       Fix: the client should wait for answers (or time out) instead of piling up commands."""),
    _r("correlation.command_mismatch", "error", "The response's `command` differs from the request's `type`.",
       """A response must echo the request's `type` in `command` (`parse` only for unparsable lines).
       A mismatch means ids were reused or the agent mixed up responses. Fix: use a fresh id per command."""),
    _r("correlation.echoed_type", "warning", "A response echoes the client's non-string `type` as `command`.",
       """pi answers a command whose `type` is not a string (a number, an object) with an error whose
       `command` is that same value. The agent's frame breaks the schema only because the client's did:
       the client frame is already flagged (`schema.wrong_type`). Fix (client): send `type` as a string."""),
    _r("correlation.idless_error", "warning", "An error response without `id` answers a command that had one.",
       """pi 0.73 (and omp 18.2.3) do not echo the `id` on unknown-command errors, so the client cannot
       tell which request failed and waits forever. pi >= 0.79.7 echoes it. Fix (client): send only known
       commands (see `schema.unknown_type`) and time out requests; (agent): echo the id."""),
    _r("correlation.unexpected_response", "warning", "An id-less response that matches no request.",
       """A response arrived without `id` and no id-less request, unparsable line or unknown command is
       waiting for one. Fix: look for frames written to the agent outside this recording."""),
    _r("correlation.reused_id", "warning", "A command reuses the id of a command still awaiting its response.",
       """Two pending commands with the same `id` cannot be told apart: their responses can arrive in
       any order (commands are not serialised in pi). Fix: generate a unique id per command
       (a counter or UUID)."""),
    _r("correlation.ui_unknown_id", "error", "An `extension_ui_response` answers a dialog that was never requested.",
       """pi silently ignores answers with an unknown id, so the real dialog stays open (and the command
       that opened it never finishes). Fix: copy `id` from the `extension_ui_request` you are answering."""),
    _r("correlation.ui_duplicate", "warning", "A second `extension_ui_response` for the same dialog.",
       """Each dialog takes exactly one answer; pi ignores the rest. Fix: close the dialog in the client
       after the first answer."""),
    _r("correlation.ui_fire_and_forget", "warning", "An `extension_ui_response` to a fire-and-forget request.",
       """`notify`, `setStatus`, `setWidget`, `setTitle` and `set_editor_text` expect no answer; pi
       ignores it. Fix: answer only `select`, `confirm`, `input` and `editor`."""),
    _r("correlation.ui_wrong_shape", "error", "An `extension_ui_response` has the wrong answer shape for its method.",
       """`select`, `input` and `editor` take `{value: string}`, `confirm` takes `{confirmed: bool}`, any
       dialog takes `{cancelled: true}`. A wrongly shaped answer resolves silently to the default
       (`undefined`, or `false` for confirm). Fix: send the field that matches the request's method."""),
    _r("correlation.ui_late", "info", "A dialog was answered after its `timeout` had expired.",
       """A dialog's `timeout` (ms) is how long the agent waits for the answer. When it expires, pi resolves
       the dialog itself, in the dialog's own terms: a `confirm` to `false` (declined), a `select` or `input`
       to `undefined` (nothing chosen or entered); the extension goes on with that, no frame tells the
       client, and the late answer is ignored. Fix (client): close the dialog yourself when `timeout` ms
       have passed, and do not report the user's late choice as taken."""),
    _r("correlation.ui_unanswered", "info", "A dialog request was never answered.",
       """A `select`/`confirm`/`input`/`editor` request got no `extension_ui_response` before the session
       ended. Without a `timeout` the extension (and any `prompt` waiting on it) stays blocked. With one, the
       agent resolved it when the timeout expired, in the dialog's own terms (a `confirm` to `false`, as if
       declined; a `select`/`input` to `undefined`, as if dismissed) and told the client nothing: what a host
       that forwards only `notify` and drops dialogs gets, every time. Fix: answer every dialog, or send
       `{cancelled: true}`."""),
    _r("correlation.ui_auto_cancelled", "warning", "Every dialog of the session was cancelled at once.",
       """The client answered every dialog of the session `{cancelled: true}` within 50 ms of the request:
       a host that cancels dialogs by program rather than showing them. `{cancelled: true}` is a valid
       answer, but to the extension it means the user dismissed the dialog: a permission `confirm` reads as
       declined, a `select` as no choice, and no user ever saw the question. A warning, not info, because
       extensions then act on choices nobody made; a host that declines on purpose (a headless policy) can
       `--ignore` it. Why 50 ms: a person needs a few hundred milliseconds at the least to read and dismiss
       a dialog, while a program answers within a millisecond, a few on a loaded machine. Raw transcripts
       carry no times and are not judged. Fix (client): show dialogs to the user (or answer them from
       configuration), and forward `select`, `confirm`, `input` and `editor`, not only `notify`."""),
    # ---- lifecycle: pairing of events ----------------------------------------------------------
    _r("lifecycle.event_with_id", "error", "An event carries an `id`.",
       """Only responses carry the command `id` (besides `extension_ui_request`'s own id and
       `bash_execution_update` in pi 0.87). A client correlating by id will mistake the event for a
       response. Fix (agent): drop `id` from events."""),
    _r("lifecycle.run_unbalanced", "error", "`agent_start`/`agent_end` do not pair up.",
       """Runs must open with `agent_start` and close with `agent_end` without nesting. Known gaps are
       not reported: EOF mid-run, and `compact`/`new_session`/`switch_session`/`fork`/`clone` during a
       run in pi 0.73 (which drop the closing or opening events). Fix (agent): emit both ends."""),
    _r("lifecycle.turn_unbalanced", "error", "`turn_start`/`turn_end` do not pair up inside a run.",
       """Turns open and close inside a run, one at a time. Fix (agent): emit `turn_end` before the next
       `turn_start` and before `agent_end`."""),
    _r("lifecycle.message_unbalanced", "error", "`message_start`/`message_update`/`message_end` do not pair up.",
       """Messages open with `message_start` and close with `message_end` of the same role;
       `message_update` only occurs inside an assistant message; user, toolResult, custom and system
       messages have no updates. Fix (agent): close each message before starting the next."""),
    _r("lifecycle.tool_unbalanced", "error", "`tool_execution_*` events do not pair up by `toolCallId`.",
       """Each `toolCallId` gets one `tool_execution_start`, any number of updates and one
       `tool_execution_end`, all inside the turn. Fix (agent): emit start before updates and end, and
       end every started tool before `turn_end`."""),
    _r("lifecycle.tool_call_unknown", "error", "A tool execution for a tool call the assistant did not make.",
       """`tool_execution_start.toolCallId` must match a `toolCall.id` in the assistant message of the
       same turn; clients use it to attach results to calls. Fix (agent): use the tool call's id."""),
    _r("lifecycle.compaction_unbalanced", "error", "Compaction start/end events do not pair up.",
       """`compaction_start` (or omp/old `auto_compaction_start`) is followed by exactly one end with the
       same `reason`. An end without a start is legitimate only for a second consecutive overflow
       (`reason:"overflow"`). Fix (agent): emit the end even when compaction fails or is aborted."""),
    _r("lifecycle.retry_unbalanced", "warning", "Auto-retry events are out of place.",
       """`auto_retry_start` follows the failed run's `agent_end` (with `willRetry:true` on pi >= 0.84) and
       `auto_retry_end` closes the retry sequence (omp defers the failed run's `agent_end` across its
       retries, so there the retry's `agent_start` follows inside the run, by design). A client waiting
       for the first `agent_end` stops too early during retries. Fix (client): treat `auto_retry_start`
       as "the run continues"."""),
    _r("lifecycle.settled_while_running", "warning", "`agent_settled` arrived while a run was still open.",
       """pi >= 0.84 (1.6.0 included) emits a stray `agent_settled` (and clears `isStreaming`) when a second prompt arrives
       before the first run starts; the real run continues and ends with its own `agent_end`. Fix
       (client): serialise prompts (see `misuse.prompt_while_starting`); ignore `agent_settled` while a
       run is open."""),
    _r("lifecycle.run_cut_off", "info", "The session ended while a run, message or compaction was open.",
       """The agent's stdin closed or the agent exited mid-run, so the closing events never came. This is
       normal at EOF (pi cuts the run off without `agent_end`), but a client waiting for `agent_end` hangs.
       Fix (client): wait for `agent_end`/`agent_settled` before closing stdin, or treat EOF as the end."""),
    _r("lifecycle.run_abandoned", "info", "A session command ended a run without its closing events.",
       """In pi 0.73, `compact`, `new_session`, `switch_session`, `fork` and `clone` sent during a run
       abort it while unsubscribed: the run's `message_end`/`turn_end`/`agent_end` are never emitted
       (pi 0.87 closes the run properly). Fix (client): `abort` and wait for `agent_end` first."""),
    # ---- stream: reconstruction of the assistant message from deltas ---------------------------
    _r("stream.text_mismatch", "error", "Concatenated text/thinking deltas differ from the `*_end` content.",
       """For each `contentIndex`, the `text_delta` (or `thinking_delta`) strings joined in order must
       equal `text_end.content` (`thinking_end.content`); clients that render deltas otherwise show
       different text than the final message. Fix (agent): emit every chunk exactly once."""),
    _r("stream.toolcall_mismatch", "error", "Tool-call deltas do not parse to the `toolcall_end` arguments.",
       """The `toolcall_delta` strings of one `contentIndex`, joined, must be JSON that equals
       `toolcall_end.toolCall.arguments`, read as pi reads it (a raw control character or a stray backslash
       inside a string is repaired first); where `toolcall_start` carries `id`/`toolName` (pi >= 0.84) they
       must match the final tool call. Arguments the agent could not parse either are no mismatch: pi >= 0.99
       says so with `toolCall.argumentsError` (`arguments` is then `{}`, and the error quotes the raw text,
       which must be what the deltas joined to); the call then fails with `Invalid arguments for tool` and the
       run goes on. Fix (agent): stream the raw argument JSON unchanged."""),
    _r("stream.block_order", "error", "Inconsistent `contentIndex` sequence in `message_update`.",
       """Per `contentIndex`: one `*_start`, then `*_delta`s, then one `*_end` of the same kind; new
       indices count up from 0. Blocks may interleave and `*_end` may be deferred (pi closes `text_end(0)`
       after a tool call's deltas), so only per-index order is checked. Fix (agent): track blocks by index."""),
    _r("stream.block_not_closed", "warning", "An assistant message ended with a content block still open.",
       """Every `*_start` gets its `*_end` before `message_end`, even on abort (pi closes the open block
       with the text so far). Fix (agent): close open blocks before `message_end`; (client): take the
       final content from `message_end.message`."""),
    _r("stream.final_mismatch", "error", "`message_end` content differs from the streamed blocks.",
       """`message_end.message.content[i]` must equal what the `*_end` event of index `i` delivered
       (text, thinking, or tool call id and arguments). Fix (agent): build the final message from the
       same blocks that were streamed."""),
    # ---- misuse: client behaviour the agent silently accepts -----------------------------------
    _r("misuse.null_frame", "error", "The client sent a JSON `null` line.",
       """`null` crashes pi, every version so far (TypeError in the error handler, exit code 1, no response); omp
       answers a parse error. Fix: never write `null`; check that the object you serialise exists."""),
    _r("misuse.prompt_while_starting", "error", "A prompt was sent while the previous prompt had not started yet.",
       """Two prompts sent back to back while idle are both acknowledged with `success:true`, but the
       second is silently dropped (pi >= 0.84 also emits a stray `agent_settled`). `streamingBehavior` does
       not help because the agent is not streaming yet. Fix: after a prompt, wait for its `agent_start`
       (or its error response) before sending the next one."""),
    _r("misuse.prompt_while_streaming", "warning", "A prompt without `streamingBehavior` was sent during a run.",
       """While the agent streams, `prompt` needs `streamingBehavior: "steer"` or `"followUp"`; without it
       pi rejects the prompt ("Agent is already processing") and omp acknowledges it and then sends an
       error with the same id. Sent during a run and accepted (`success: true`, no `disposition` of
       `queued`/`handled`), pi drops it silently. Fix: set `streamingBehavior`, or use
       `steer`/`follow_up`."""),
    _r("misuse.queue_extension_command", "warning", "`steer`/`follow_up` with an extension command.",
       """Extension commands (`/name`) cannot be queued: pi rejects them in `steer` and `follow_up`.
       Fix: send extension commands with `prompt` (they run immediately, even while streaming)."""),
    _r("misuse.queued_while_idle", "info", "A `steer` or `follow_up` sent while no run was active was queued.",
       """pi accepts `steer` and `follow_up` while idle (pi >= 0.99 answers `disposition:"queued"`), but
       they start nothing: the message waits in the queue until a later `prompt` starts a run, which
       delivers it (a steer right after that prompt's message, a follow-up after its first turn). A client
       that waits for `agent_start` or `agent_end` after it waits forever. Info, not a warning: queueing
       ahead of the next prompt is legitimate when meant. Fix (client): to start a run, send `prompt`;
       send `steer`/`follow_up` only during a run, or send the next prompt before waiting."""),
    # ---- client pitfalls the diagnosis finds (rpcspy.diagnose, via rpcspy.checker.pitfalls) ------
    _r("misuse.jsonrpc_frame", "error", "A client frame is shaped like JSON-RPC (`jsonrpc`, `method`).",
       """pi and omp speak their own JSONL, not JSON-RPC: a command is `{"type": "<command>", "id": ...,
       ...fields}`. A JSON-RPC request (`{"jsonrpc": "2.0", "method": ..., "params": ...}`) is answered
       `"Unknown command: undefined"` and the client waits for a result that never comes. Fix: send
       `type` with the command name and the fields at the top level, and read `response` frames."""),
    _r("misuse.omp_over_cap", "warning", "omp shrank or replaced a frame over its 1 MiB cap (no protocol v2).",
       """omp caps physical frames at `maxFrameBytes` (1 MiB, announced in `ready`). Without protocol v2
       it elides long strings, compacts `agent_end.messages`, answers an oversized response with an error
       ("exceeded the transport limit") or sends `rpc_frame_error` instead of the frame. Fix (client):
       send `{"type":"negotiate_protocol","protocolVersion":2}` first and reassemble `rpc_chunk` frames."""),
    _r("lifecycle.response_after_settle", "info", "A command that ends a run was answered after the run settled.",
       """pi answers `abort` (and omp some session commands) only after the run's `agent_settled`
       (pi 0.73: `agent_end`) has been sent. A client that, on the response, starts waiting for the settle
       waits forever. Fix (client): treat the settle as possibly already passed: track it from the moment
       the command is sent, or ask `get_state` after the response."""),
    # ---- acp: the Agent Client Protocol (JSON-RPC 2.0; ACP v1 schema, npm @agentclientprotocol/sdk) ------
    _r("acp.unknown_id", "error", "A JSON-RPC response carries an id no request of the other side is waiting on.",
       """Each side numbers its own requests and the other side answers with the same `id` (JSON-RPC 2.0,
       section 5: "It MUST be the same as the value of the id member in the Request Object"); `5` and
       `"5"` are different ids. Fix: echo the request's `id` unchanged, of the same JSON type."""),
    _r("acp.duplicate_response", "error", "A second response to the same request id.",
       """A request gets exactly one response. SDKs drop the second one, or resolve the wrong call when
       the id was reused. Fix: answer once; never reuse an id while its request is waiting."""),
    _r("acp.notification_with_id", "error", "A notification method was sent with an `id`.",
       """`session/update`, `session/cancel` and `elicitation/complete` are notifications in the ACP v1
       schema (`AgentNotification`/`ClientNotification`: no `id`). With an `id` the peer takes them for
       requests and answers `-32601 method not found`, or waits. Fix: send notifications without `id`."""),
    _r("acp.request_without_id", "warning", "A request method was sent without an `id`.",
       """Without an `id` a request is a notification: no response will come, so a client awaiting
       `session/prompt` or an agent awaiting `session/request_permission` hangs. Fix: give every request
       a fresh id."""),
    _r("acp.capability", "error", "A method the capabilities negotiated in `initialize` do not allow.",
       """The ACP v1 schema makes `fs/read_text_file`, `fs/write_text_file`, `terminal/*` and
       `elicitation/create` "only available if the client advertises" the matching `clientCapabilities`,
       and `session/load`, `session/list`, ... only if `agentCapabilities` advertise them (absent means
       false); a prompt's image, audio and embedded resource blocks need `promptCapabilities`. Fix: read
       the peer's capabilities from `initialize` and fall back (e.g. read the file yourself) when absent."""),
    _r("acp.protocol_version", "warning", "`initialize` settled on an ACP version other than 1.",
       """The agent answers `initialize` with the `protocolVersion` both will speak (the client's or an
       older one it supports; ACP v1 schema, `InitializeResponse`). rpcspy's dialect `acp-v1` knows version
       1 only; ACP v2 (batch arrays, renamed methods) is a separate dialect, so this session's other
       findings may be wrong. Fix: pass `--dialect` when rpcspy knows the version, or negotiate version 1."""),
    _r("acp.before_initialize", "error", "A request before `initialize` was answered.",
       """ACP starts with `initialize` (protocol version and capabilities); nothing else is defined before
       its answer. Fix: send `initialize` first and wait for its result."""),
    _r("acp.unknown_session", "error", "A message names a `sessionId` no `session/new`, load or resume made.",
       """`session/update`, `session/prompt` and the agent's requests carry the `sessionId` that
       `session/new` returned (or that `session/load`/`session/resume` named); a client drops updates
       for a session it does not know. Fix: use the id the session was created with."""),
    _r("acp.unknown_tool_call", "error", "A `tool_call_update` for a `toolCallId` never announced.",
       """A tool call is announced by a `tool_call` session update (or in a permission request's
       `toolCall`) before updates refer to it (ACP v1 schema, `ToolCallUpdate`: "An update to an existing
       tool call"); clients ignore updates of unknown calls, so their output is lost. Fix: send
       `tool_call` first, with the same `toolCallId`."""),
    _r("acp.tool_status_backwards", "error", "A tool call's status went backwards, or changed after it finished.",
       """`ToolCallStatus` moves `pending` -> `in_progress` -> `completed` or `failed`; a finished call does
       not start again (clients render it done and then running). Fix: send a new `toolCallId` for a
       new attempt."""),
    _r("acp.prompt_during_permission", "error", "`session/prompt` was answered while a permission request was outstanding.",
       """The agent ended the prompt turn while its `session/request_permission` to the client still waited
       for an answer: the client shows a dialog for a turn that is over. When a turn is cancelled the
       client MUST answer pending permission requests with the `cancelled` outcome (schema,
       `RequestPermissionOutcome`), and the agent answers the prompt after that. Fix: wait for (or
       withdraw) the permission request before answering `session/prompt`."""),
    _r("acp.cancel_not_honoured", "warning", "A prompt cancelled by `session/cancel` ended without `stopReason: cancelled`.",
       """On `session/cancel` the agent "MUST respond to the original `session/prompt` request with the
       `cancelled` stop reason" (ACP v1 schema, `CancelNotification`; an error response is not
       compliant). A turn that finished just before the cancel arrived may still say `end_turn`. Fix: catch
       the abort and answer `{"stopReason": "cancelled"}`."""),
    _r("acp.permission_not_cancelled", "warning", "A permission request pending at `session/cancel` was not answered `cancelled`.",
       """After `session/cancel` the client "MUST respond to all pending `session/request_permission`
       requests with this `cancelled` outcome" (schema, `RequestPermissionOutcome`). Fix: answer them
       `{"outcome": {"outcome": "cancelled"}}`."""),
    _r("acp.bad_error", "error", "A JSON-RPC error object breaks JSON-RPC's shape.",
       """An error response's `error` is an object with an integer `code` and a string `message`, and
       optionally `data`, nothing else (JSON-RPC 2.0 section 5.1; ACP v1 schema `Error`). SDKs that
       validate responses reject the whole message, so the caller never learns of the failure. Fix: throw
       a `RequestError` (SDK) or build `{code, message, data}`; put details in `data`."""),
    _r("acp.unanswered", "warning", "An ACP request was never answered.",
       """A request (the client's `session/prompt`, the agent's `session/request_permission`, `fs/*`,
       `terminal/*`) got no response before the session ended: the side that sent it was still waiting.
       With `--unanswered-after SECONDS` it is said as soon as a request has waited that long (a
       `session/prompt`: once its session has been silent that long). `rpcspy why` says who owed the
       answer and since when."""),
    # ---- recording: the file itself (offline commands only) ------------------------------------
    _r("recording.truncated", "warning", "The recording ends in the middle of a line.",
       """The last line has no LF and cannot be read: rpcspy was killed, or its disk filled, while
       writing, so the session's end is missing. Readers skip the line. Fix: keep rpcspy running until
       the agent exits (send the agent a signal, not rpcspy), give the recording directory free space."""),
    _r("recording.unreadable_line", "warning", "A line of the recording cannot be read.",
       """A line in the middle of the recording is not a valid entry (damaged, edited, or written by
       something other than rpcspy); readers skip it and go on. What it held is lost to every command.
       Fix: record again; do not edit recordings by hand (use `rpcspy fixture` to derive a changed copy)."""),
    _r("recording.no_frames", "warning", "The recording holds no frames.",
       """Nothing passed in either direction: the agent did not start, the client sent nothing, or
       recording stopped at once (a refused or unwritable file is also said on rpcspy's stderr). Fix:
       check the agent command and rpcspy's stderr of that session."""),
    _r("recording.no_exit", "warning", "The recording ends without the agent's exit.",
       """Every session rpcspy sees to its end closes with an `exit` (or `spawn_failed`) entry. Without
       one, rpcspy was killed (`kill -9`, a crash, a closed terminal), or the session is still running:
       what happened after the last entry is unknown. Fix: stop sessions by ending the client or
       signalling the agent; `rpcspy watch` follows a recording that is still growing."""),
    # ---- checker ---------------------------------------------------------------------------------
    _r("checker.internal_error", "warning", "The checker failed on a frame (a bug in rpcspy).",
       """A rule raised an exception; the checker skipped the rest of that frame and carries on. Please
       report it with the recording. Other findings for this frame may be missing."""),
    _r("checker.gap", "warning", "Part of the session was forwarded but not recorded (a gap).",
       """The proxy forwarded these bytes but could not record them: the observer process was stopped
       (SIGSTOP) or dead, or made no progress at all for a minute, while the proxy held its bound for it
       (older rpcspy also cut gaps for a full tape or spool directory). The client got every byte; the
       recording lacks them, so frames around the gap are missing and findings next to it may be wrong.
       Fix: do not stop rpcspy's processes; see docs/reliability.md."""),
)

RULES: dict[str, Rule] = {rule.id: rule for rule in _CATALOGUE}
"""The catalogue, in display order: ``RULES[id]`` -> :class:`Rule`."""


def rules_in_group(group: str) -> list[Rule]:
    """The rules of one group, in catalogue order."""
    return [r for r in RULES.values() if r.group == group]

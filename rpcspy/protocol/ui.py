"""Extension UI requests (agent stdout), discriminated by ``method`` (protocol-notes 5.1, 5.3).

Every request is ``{type:"extension_ui_request", id, method, …}``. Dialog methods expect one
``extension_ui_response`` (see :class:`rpcspy.protocol.commands.ExtensionUIResponse`);
fire-and-forget methods expect none.
"""

from typing import Any, Literal

from msgspec import UNSET

from rpcspy.protocol.base import Base, Opt
from rpcspy.protocol.spec import Spec

ANSWER_FIELDS: dict[str, tuple[str, ...]] = {
    "select": ("value", "cancelled"),
    "confirm": ("confirmed", "cancelled"),
    "input": ("value", "cancelled"),
    "editor": ("value", "cancelled"),
}
"""For each dialog method, the ``extension_ui_response`` keys that answer it."""


class UIRequest(Base, tag_field="method", kw_only=True):
    type: Literal["extension_ui_request"]
    id: str


class Confirm(UIRequest, tag="confirm"):
    title: str
    message: str
    timeout: Opt[int] = UNSET


class Input(UIRequest, tag="input"):
    title: str
    placeholder: Opt[str] = UNSET
    timeout: Opt[int] = UNSET


class Notify(UIRequest, tag="notify"):
    message: str
    notifyType: Opt[Literal["info", "warning", "error"]] = UNSET


class SetStatus(UIRequest, tag="setStatus"):
    statusKey: str
    statusText: Opt[str] = UNSET
    """Absent means clear."""


class SetWidget(UIRequest, tag="setWidget"):
    widgetKey: str
    widgetLines: Opt[list[str]] = UNSET
    """Absent means clear."""
    widgetPlacement: Opt[Literal["aboveEditor", "belowEditor"]] = UNSET


class SetTitle(UIRequest, tag="setTitle"):
    title: str


class SetEditorText(UIRequest, tag="set_editor_text"):
    text: str


class OptionDetail(Base):
    description: Opt[str] = UNSET


class Select(UIRequest, tag="select"):
    title: str
    options: list[str]
    timeout: Opt[int] = UNSET


class OmpSelect(Select, tag="select"):
    optionDetails: Opt[list[OptionDetail]] = UNSET


class Editor(UIRequest, tag="editor"):
    title: str
    prefill: Opt[str] = UNSET


class OmpEditor(Editor, tag="editor"):
    promptStyle: Opt[bool] = UNSET


class Cancel(UIRequest, tag="cancel"):
    """omp: a dialog's abort signal fired; ``targetId`` is the dialog's request id."""

    targetId: str


class OpenUrl(UIRequest, tag="open_url"):
    """omp: emitted during ``login``."""

    url: str
    launchUrl: Opt[str] = UNSET
    instructions: Opt[str] = UNSET


def ui_requests(spec: Spec) -> list[Any]:
    """The request classes of one dialect."""
    common: list[Any] = [Confirm, Input, Notify, SetStatus, SetWidget, SetTitle, SetEditorText]
    if spec.omp_family:
        return common + [OmpSelect, OmpEditor, Cancel, OpenUrl]
    return common + [Select, Editor]

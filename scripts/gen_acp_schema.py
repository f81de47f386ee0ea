#!/usr/bin/env python3
"""Generate rpcspy/protocol/acp_types.py (msgspec types) from the official ACP JSON Schema.

The schema is ``schema/v1/schema.json`` of the npm package ``@agentclientprotocol/sdk``::

    scripts/gen_acp_schema.py                    # npm pack the pinned version into a temp dir, then generate
    scripts/gen_acp_schema.py --schema FILE --sdk-version X.Y.Z

Every ``$defs`` object becomes a Struct (wire names kept; ``_meta`` and other names Python cannot
spell are renamed with ``msgspec.field(name=...)``), a discriminated ``oneOf`` a tagged union of
one subclass per variant, a set of constants a ``Literal``, and what msgspec cannot type exactly (an
untagged union of objects, an open-ended extension value) an open ``dict``/``Any``: rpcspy's checks
never report more than the schema says. ``METHODS`` maps each method to who handles it and the
types of its params and result (``x-method``/``x-side`` in the schema). The output is committed;
tests/protocol/test_acp_types.py checks it is what this script makes of tests/data/acp/schema-v1.json.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "rpcspy" / "protocol" / "acp_types.py"
SDK = "@agentclientprotocol/sdk"
SDK_VERSION = "2.4.0"
"""The SDK whose ``schema/v1/schema.json`` the committed module was generated from."""


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


class Gen:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.classes: list[str] = []
        self.variants: list[str] = []
        self.aliases: dict[str, str] = {}
        self.alias_deps: dict[str, set[str]] = {}
        self.kinds: dict[str, str] = {}
        """def name -> "struct" | "tagged" | "alias"."""
        for name, d in defs.items():
            self.kinds[name] = self.kind(d)

    # ---- classification ----------------------------------------------------------------------
    @staticmethod
    def discriminated(d: dict[str, Any]) -> str | None:
        """The tag field of a ``oneOf`` whose every variant is an object with a const in that field."""
        variants = d.get("oneOf") or d.get("anyOf")
        if not variants:
            return None
        fields = None
        for v in variants:
            consts = {k for k, p in v.get("properties", {}).items() if "const" in p}
            fields = consts if fields is None else fields & consts
        if fields and len(fields) == 1:
            return next(iter(fields))
        return None

    def kind(self, d: dict[str, Any]) -> str:
        if d.get("type") == "object" and "properties" in d and not (d.get("oneOf") or d.get("anyOf")):
            return "struct"
        if self.discriminated(d):
            return "tagged"
        return "alias"

    # ---- types -------------------------------------------------------------------------------
    def ref(self, name: str, deps: set[str]) -> str:
        if self.kinds[name] != "struct":
            deps.add(name)
        return name

    def type_of(self, s: dict[str, Any], deps: set[str]) -> str:
        """The Python type expression for schema ``s``."""
        if "$ref" in s:
            return self.ref(ref_name(s["$ref"]), deps)
        if "allOf" in s and len(s["allOf"]) == 1 and "properties" not in s:
            return self.type_of(s["allOf"][0], deps)
        if "const" in s:
            return f"Literal[{s['const']!r}]"
        if "enum" in s:
            return "Literal[" + ", ".join(repr(v) for v in s["enum"]) + "]"
        variants = s.get("oneOf") or s.get("anyOf")
        if variants:
            return self.union([self.type_of(v, deps) if not ("const" in v and v.get("type") in ("string", "integer"))
                               else f"Literal[{v['const']!r}]" for v in variants])
        t = s.get("type")
        if isinstance(t, list):
            return self.union([self.type_of({**s, "type": x}, deps) for x in t])
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            return f"list[{self.type_of(s.get('items', {}), deps)}]"
        if t == "object":
            return "dict[str, Any]"
        return "Any"

    def union(self, members: list[str]) -> str:
        """A union msgspec accepts: literals folded into their open type, at most one object-like and
        one array-like member (an untagged union of objects is an open ``dict``), else ``Any``."""
        out: list[str] = []
        lits = [m for m in members if m.startswith("Literal[")]
        rest = [m for m in members if not m.startswith("Literal[")]
        if lits and not ({"str", "int"} & set(rest)):
            out.append("Literal[" + ", ".join(m[8:-1] for m in lits) + "]")
        out += rest
        objects = [m for m in out if self.object_like(m)]
        arrays = [m for m in out if m.startswith("list[")]
        if len(objects) > 1:
            out = [m for m in out if m not in objects] + ["dict[str, Any]"]
        if len(arrays) > 1:
            out = [m for m in out if m not in arrays] + ["list[Any]"]
        if "Any" in out:
            return "Any"
        out = list(dict.fromkeys(out))
        return out[0] if len(out) == 1 else "Union[" + ", ".join(out) + "]"

    def object_like(self, m: str) -> bool:
        if m.startswith("dict["):
            return True
        name = m.split("[")[0]
        return self.kinds.get(name) in ("struct", "tagged")

    # ---- emitters ------------------------------------------------------------------------------
    def fields(self, props: dict[str, Any], required: list[str], skip: str | None = None) -> list[str]:
        lines = []
        deps: set[str] = set()
        ordered = [k for k in props if k in required] + [k for k in props if k not in required]
        for wire in ordered:
            if wire == skip:
                continue
            tp = self.type_of(props[wire], deps)
            py = wire if wire.isidentifier() and not keyword.iskeyword(wire) and not wire.startswith("_") \
                else "f" + re.sub(r"\W", "_", wire)
            rename = "" if py == wire else f'name="{wire}"'
            if wire in required:
                lines.append(f"    {py}: {tp}" + (f" = msgspec.field({rename})" if rename else ""))
            else:
                default = f"msgspec.field(default=UNSET, {rename})" if rename else "UNSET"
                lines.append(f"    {py}: Opt[{tp}] = {default}")
        return lines

    def doc(self, d: dict[str, Any]) -> str:
        text = (d.get("description") or "").strip().split("\n\n")[0].replace("\\", "\\\\").replace('"""', "'''")
        return f'    """{text}"""' if text else ""

    def struct(self, name: str, d: dict[str, Any]) -> None:
        body = [line for line in [self.doc(d)] if line]
        body += self.fields(d.get("properties", {}), d.get("required", []))
        self.classes.append(f"class {name}(AcpObject):\n" + ("\n".join(body) if body else "    pass"))

    def tagged(self, name: str, d: dict[str, Any]) -> None:
        field = self.discriminated(d)
        assert field
        members = []
        for v in d.get("oneOf") or d.get("anyOf"):
            tag = v["properties"][field]["const"]
            cls = name + "_" + "".join(p.capitalize() for p in re.split(r"\W|_", str(tag)) if p)
            base = "AcpObject"
            refs = [ref_name(a["$ref"]) for a in v.get("allOf", []) if "$ref" in a]
            if refs and self.kinds.get(refs[0]) == "struct":
                base = refs[0]
            body = [line for line in [self.doc(v)] if line]
            base_fields = set(self.defs[refs[0]].get("properties", {})) if base != "AcpObject" else set()
            # the union's own members (e.g. SessionConfigOption's id, name) belong to every variant
            own = {k: p for k, p in {**d.get("properties", {}), **v.get("properties", {})}.items()
                   if k != field and k not in base_fields}
            required = [*d.get("required", []), *v.get("required", [])]
            body += self.fields(own, [r for r in required if r != field])
            self.variants.append(f"class {cls}({base}, tag_field={field!r}, tag={tag!r}):\n"
                                 + ("\n".join(body) if body else "    pass"))
            members.append(cls)
        self.aliases[name] = "Union[" + ", ".join(members) + "]"
        self.alias_deps[name] = set()

    def alias(self, name: str, d: dict[str, Any]) -> None:
        deps: set[str] = set()
        self.aliases[name] = self.type_of(d, deps)
        self.alias_deps[name] = deps - {name}

    def run(self) -> None:
        for name, d in self.defs.items():
            getattr(self, self.kinds[name])(name, d)

    def ordered_aliases(self) -> list[str]:
        done: list[str] = []
        seen: set[str] = set()

        def visit(n: str) -> None:
            if n in seen:
                return
            seen.add(n)
            for dep in sorted(self.alias_deps.get(n, ())):
                if dep in self.aliases:
                    visit(dep)
            done.append(n)

        for n in self.aliases:
            visit(n)
        return done


def methods(defs: dict[str, Any]) -> list[str]:
    """``"method": (handled by, params type, result type or None)`` lines."""
    found: dict[str, dict[str, str]] = {}
    for name, d in defs.items():
        method = d.get("x-method")
        if not method:
            continue
        entry = found.setdefault(method, {"side": d.get("x-side", "")})
        if name.endswith("Request"):
            entry["params"] = name
        elif name.endswith("Response"):
            entry["result"] = name
        elif name.endswith("Notification"):
            entry["params"] = name
    return [f'    "{m}": MethodTypes("{e["side"]}", {e["params"]}, {e.get("result", "None")}),'
            for m, e in found.items()]


def generate(schema: dict[str, Any], sdk_version: str) -> str:
    gen = Gen(schema["$defs"])
    gen.run()
    aliases = [f"{n} = {gen.aliases[n]}" for n in gen.ordered_aliases()]
    head = f'''"""The Agent Client Protocol v1, typed: GENERATED by scripts/gen_acp_schema.py, do not edit.

Source: ``schema/v1/schema.json`` of npm ``{SDK}`` {sdk_version}. Regenerate with
``scripts/gen_acp_schema.py`` (it says how); tests/protocol/test_acp_types.py checks this file is
what the script makes of tests/data/acp/schema-v1.json.
"""

# ruff: noqa: E501, N801
from __future__ import annotations

from typing import Any, Literal, NamedTuple, Union

import msgspec
from msgspec import UNSET

from rpcspy.protocol.base import Opt

SDK_PACKAGE = "{SDK}"
SDK_VERSION = "{sdk_version}"
"""The SDK package version whose schema this module was generated from."""
PROTOCOL_VERSION = 1
"""The ACP ``protocolVersion`` this schema describes."""

class AcpObject(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Every ACP object: a key the schema does not name fails the fast path and is then reported (info)."""
'''
    tail = '''

class MethodTypes(NamedTuple):
    """A method: who handles it (``agent``, ``client``, ``protocol``), its params and its result (None:
    a notification)."""

    side: str
    params: Any
    result: Any


METHODS: dict[str, MethodTypes] = {
''' + "\n".join(methods(schema["$defs"])) + "\n}\n"
    return head + "\n\n" + "\n\n\n".join(gen.classes + gen.variants) + "\n\n\n" + "\n".join(aliases) + "\n" + tail


def fetch_schema(version: str, tmp: Path) -> dict[str, Any]:
    subprocess.run(["npm", "pack", f"{SDK}@{version}", "--silent"], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
    tgz = next(tmp.glob("*.tgz"))
    with tarfile.open(tgz) as tar:
        member = tar.extractfile("package/schema/v1/schema.json")
        assert member is not None
        return json.load(member)  # type: ignore[no-any-return]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--schema", type=Path, help="a schema.json already at hand (default: npm pack the SDK)")
    ap.add_argument("--sdk-version", default=SDK_VERSION, help=f"the SDK version (default {SDK_VERSION})")
    ap.add_argument("-o", "--output", type=Path, default=OUT)
    ap.add_argument("--keep-schema", type=Path, help="also write the schema used to this file")
    args = ap.parse_args()
    if args.schema:
        schema = json.loads(args.schema.read_text(encoding="utf-8"))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            schema = fetch_schema(args.sdk_version, Path(tmp))
    if args.keep_schema:
        args.keep_schema.write_text(json.dumps(schema, separators=(",", ":")) + "\n", encoding="utf-8")
    args.output.write_text(generate(schema, args.sdk_version), encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the ASN.1 of the current VRU Awareness Message (ETSI TS 103 300-3 V2.2.1,
VAM-PDU-Descriptions major-version-3 minor-version-1, protocolVersion 3, over the Release 2
Common Data Dictionary ETSI-ITS-CDD) for rasn-compiler (`make codecs`), reduced to the types
the VAM reaches.

The source is ETSI's text as the PyPI package v2xflexstack ships it (the VRU awareness service
of i2CAT's FlexStack compiles it with asn1tools): `VAM_ASN1_DESCRIPTIONS` in
flexstack/facilities/vru_awareness_service/vam_asn1.py, ETSI's VAM-PDU-Descriptions with the
CDD's types put into the same module in place of its IMPORTS. The string is read out of the
file without running it (ast), parsed by asn1tools, and every type reachable from `VAM` is
printed back as ASN.1 module text, so no ASN.1 is transcribed by hand and no ETSI text is kept
in the repository.

What the output does not have (none of it is PER-visible, so the encoding is the same):
* inner subtype constraints (`ItsPduHeaderVam ::= ItsPduHeader (WITH COMPONENTS {...,
  protocolVersion(3), messageId(vam)})`, the cluster container's `PRESENT`): written as the
  type they constrain;
* comments.

    asn1tools_to_asn1.py VAM_ASN1.py OUTPUT_DIR    writes OUTPUT_DIR/VAM-PDU-Descriptions.asn
"""

import argparse
import ast
import re
import sys
from pathlib import Path

import asn1tools

MODULE = "VAM-PDU-Descriptions"
ROOT = "VAM"
# The module the VAM of protocolVersion 3 is: TS 103 300-3 V2.2.1.
OID = "itu-t(0) identified-organization(4) etsi(0) itsDomain(5) wg1(1) 103300 vam(1) major-version-3(3) minor-version-1(1)"
VARIABLE = "VAM_ASN1_DESCRIPTIONS"

SIMPLE = {"BOOLEAN", "NULL", "INTEGER", "OCTET STRING", "IA5String", "UTF8String", "NumericString", "VisibleString"}
CONSTRUCTED = {"SEQUENCE", "SET", "CHOICE"}
LISTS = {"SEQUENCE OF", "SET OF"}
# keys of asn1tools' parse that the text is written from
KNOWN = {
    "type",
    "name",
    "optional",
    "default",
    "members",
    "element",
    "restricted-to",
    "size",
    "named-numbers",
    "named-bits",
    "values",
    "with-components",
}


class Unsupported(Exception):
    pass


def asn1_text(python_file: Path) -> str:
    """The value of VARIABLE in python_file, read without running the file."""
    for node in ast.parse(python_file.read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [VARIABLE]:
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
    raise Unsupported(f"no string {VARIABLE} in {python_file}")


def module_oid(text: str) -> str:
    match = re.search(re.escape(MODULE) + r"\s*\{([^}]*)\}\s*DEFINITIONS", text)
    if not match:
        raise Unsupported(f"no module {MODULE} in the source")
    oid = " ".join(match.group(1).split())
    if oid.replace(" ", "") != OID.replace(" ", ""):
        raise Unsupported(f"{MODULE} is {{{oid}}}, not the expected {{{OID}}}")
    return oid


def value_text(v) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str) and re.fullmatch(r"-?\d+", v):
        return v
    if isinstance(v, str) and re.fullmatch(r"[a-z][A-Za-z0-9-]*|MIN|MAX", v):
        return v  # a named number or a bound
    raise Unsupported(f"value {v!r}")


def set_text(entries) -> str:
    """asn1tools' constraint list: ranges [lo, hi], single values, None for the extension marker."""
    root, ext, extensible = [], [], False
    for entry in entries:
        if entry is None:
            extensible = True
            continue
        item = f"{value_text(entry[0])}..{value_text(entry[1])}" if isinstance(entry, (list, tuple)) else value_text(entry)
        (ext if extensible else root).append(item)
    if not root:
        raise Unsupported(f"constraint without a root {entries!r}")
    text = " | ".join(root)
    if extensible:
        text += ", ..." + "".join(f", {e}" for e in ext)
    return text


class Writer:
    def __init__(self, types: dict):
        self.types = types
        self.reached: list[str] = []

    def reach(self, name: str):
        if name in self.reached:
            return
        if name not in self.types:
            raise Unsupported(f"no type {name} in {MODULE}")
        self.reached.append(name)
        self.walk(self.types[name])

    def walk(self, t: dict):
        unknown = set(t) - KNOWN
        if unknown:
            raise Unsupported(f"{t.get('name', t['type'])}: {sorted(unknown)}")
        if t["type"] in self.types:
            self.reach(t["type"])
        for member in t.get("members") or []:
            if member is None:
                continue
            if isinstance(member, list):
                raise Unsupported(f"{t.get('name')}: extension addition group")
            self.walk(member)
        if "element" in t:
            self.walk(t["element"])

    def type_text(self, t: dict, indent: str) -> str:
        kind = t["type"]
        text = ""
        if kind in self.types:
            text = kind
        elif kind == "INTEGER":
            text = "INTEGER" + self.named(t.get("named-numbers"))
        elif kind == "ENUMERATED":
            items = ["..." if v is None else f"{v[0]}({v[1]})" for v in t["values"]]
            text = "ENUMERATED {" + ", ".join(items) + "}"
        elif kind == "BIT STRING":
            bits = t.get("named-bits")
            text = "BIT STRING" + (self.named({n: v for n, v in bits}) if bits else "")
        elif kind in CONSTRUCTED:
            text = kind + " " + self.components(t, indent)
        elif kind in LISTS:
            size = f" (SIZE ({set_text(t['size'])}))" if "size" in t else ""
            return f"{kind.split()[0]}{size} OF {self.type_text(t['element'], indent)}"
        elif kind in SIMPLE:
            text = kind
        else:
            raise Unsupported(f"type {kind}")
        if "restricted-to" in t:
            text += f" ({set_text(t['restricted-to'])})"
        if "size" in t:
            text += f" (SIZE ({set_text(t['size'])}))"
        return text

    @staticmethod
    def named(numbers) -> str:
        if not numbers:
            return ""
        return " {" + ", ".join(f"{name}({value_text(value)})" for name, value in numbers.items()) + "}"

    def components(self, t: dict, indent: str) -> str:
        inner = indent + "    "
        lines = []
        for member in t["members"]:
            if member is None:
                lines.append(inner + "...")
                continue
            text = f"{inner}{member['name']} {self.type_text(member, inner)}"
            if t["type"] != "CHOICE":
                if "default" in member:
                    text += f" DEFAULT {value_text(member['default'])}"
                elif member.get("optional"):
                    text += " OPTIONAL"
            lines.append(text)
        if not lines:
            return "{}"
        return "{\n" + ",\n".join(lines) + "\n" + indent + "}"

    def module(self, oid: str) -> str:
        self.reach(ROOT)
        body = "\n\n".join(f"{name} ::= {self.type_text(self.types[name], '')}" for name in self.types if name in self.reached)
        return "\n".join(
            [
                f"-- {MODULE}, as asn1tools parsed it: generated by tools/codecs/asn1tools_to_asn1.py",
                "-- from v2xflexstack's VAM_ASN1_DESCRIPTIONS. Only the types the VAM reaches.",
                f"{MODULE} {{ {oid} }}",
                "DEFINITIONS AUTOMATIC TAGS ::=",
                "BEGIN",
                "",
                body,
                "",
                "END",
                "",
            ]
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="flexstack/facilities/vru_awareness_service/vam_asn1.py")
    parser.add_argument("output_dir", type=Path)
    args = parser.parse_args()
    try:
        text = asn1_text(args.source)
        oid = module_oid(text)
        spec = asn1tools.parse_string(text)
        if list(spec) != [MODULE]:
            raise Unsupported(f"modules {list(spec)}, expected only {MODULE}")
        if spec[MODULE].get("tags") != "AUTOMATIC":
            raise Unsupported(f"{MODULE} is not AUTOMATIC TAGS")
        out = Writer(spec[MODULE]["types"]).module(oid)
    except Unsupported as e:
        print(f"asn1tools_to_asn1: unsupported: {e}", file=sys.stderr)
        return 1
    args.output_dir.mkdir(parents=True, exist_ok=True)
    (args.output_dir / f"{MODULE}.asn").write_text(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the ASN.1 of the VRU Awareness Message (ETSI TS 103 300-3 V2.1.1) back out of
pycrate's compilation of it, for rasn-compiler (`make codecs`).

ETSI's ASN.1 text is in no package registry; pycrate (PyPI) ships its compilation,
`pycrate_asn1dir.ITS_VAM_3`: VAM-PDU-Descriptions (OID 0 4 0 5 1 103300 1 1) with the modules
it imports (ITS-Container 102894-2 version 2, CAM-PDU-Descriptions, DSRC, VAM-Temp-Imports, ...).
Its runtime objects carry the whole definition: components, named numbers and bits, root and
extension lists, OPTIONAL / DEFAULT, tags, PER-visible constraints and type references. This
script walks them from `VAM-PDU-Descriptions.VAM`, collects every type reachable from it and
prints those as ASN.1 module text, so no ASN.1 is transcribed by hand.

One output module per source module, each with its OID and IMPORTS, rather than one merged
module: VAM-Temp-Imports redefines names ITS-Container has too (ItsPduHeader, StationType), so
a merged module would only work for as long as the closure happens to take each name from one
module, and rasn-compiler keeps the module structure (one Rust module per ASN.1 module, the
types keep the module they come from).

What pycrate does not keep, and so the output does not have:
* table constraints by name: an instance of a parameterised type (DSRC's `RegionalExtension
  {{Reg-...}}`) is compiled into its components with an anonymous copy of the object set, not
  its name. The instance is written as the SEQUENCE it expands to, its fields as the class
  fields (`REG-EXT-ID-AND-TYPE.&id`, `.&Type`) without the table constraint, which PER does not
  see: the encoding is the same (the open type is a length-prefixed octet string either way).
* constraints PER does not see, e.g. `ItsPduHeaderVam ::= ItsPduHeader (WITH COMPONENTS ...)`:
  pycrate drops them at compile time.
* comments.

Tags: every module is written with AUTOMATIC TAGS. A SEQUENCE / SET / CHOICE whose components
carry exactly the tags automatic tagging gives them is written without tags; any other gets
every component's tag written out (X.680 then does not tag it automatically).

    pycrate_to_asn1.py OUTPUT_DIR    writes one <Module-Name>.asn per module
"""

import argparse
import sys
from pathlib import Path

from pycrate_asn1dir import ITS_VAM_3 as SOURCE
from pycrate_asn1rt.refobj import ASN1RefClassField, ASN1RefType

ROOT = ("VAM-PDU-Descriptions", "VAM")
GENERATED_BY = "tools/codecs/pycrate_to_asn1.py from pycrate_asn1dir.ITS_VAM_3"

MODULES = {
    m._name_: m for m in (getattr(SOURCE, n) for n in dir(SOURCE)) if hasattr(m, "_name_") and hasattr(m, "_obj_")
}

# pycrate's TYPE names that are written as they are
SIMPLE = {
    "BOOLEAN",
    "NULL",
    "INTEGER",
    "REAL",
    "OCTET STRING",
    "OBJECT IDENTIFIER",
    "RELATIVE-OID",
    "IA5String",
    "PrintableString",
    "NumericString",
    "VisibleString",
    "UTF8String",
    "BMPString",
    "UniversalString",
    "GraphicString",
    "GeneralString",
    "TeletexString",
    "T61String",
    "VideotexString",
    "ISO646String",
    "UTCTime",
    "GeneralizedTime",
}
CONSTRUCTED = {"SEQUENCE", "SET", "CHOICE"}
LISTS = {"SEQUENCE OF", "SET OF"}
# Automatic tagging tags these explicitly (X.680 31.2.7: CHOICE, open type, ANY).
EXPLICIT_BY_AUTOMATIC = {"CHOICE", "OPEN_TYPE", "ANY"}


class Unsupported(Exception):
    pass


def lookup(module: str, name: str):
    try:
        return getattr(MODULES[module], name.replace("-", "_"))
    except (KeyError, AttributeError):
        raise Unsupported(f"no {module}.{name} in pycrate's {SOURCE.__name__}") from None


def is_parameterised(ref: ASN1RefType) -> bool:
    target = lookup(*ref.called)
    return bool(getattr(target, "_param", None)) or (target._cont is None and target.TYPE in CONSTRUCTED | LISTS)


def set_key(s):
    """A comparable form of a pycrate ASN1Set (None when there is no constraint)."""
    if s is None:
        return None
    return (repr(s._rv), repr(s._rr), repr(s._ev), repr(s._er))


class Writer:
    def __init__(self):
        # (module, name) in the order found; the text is written per module in pycrate's order
        self.reached: list[tuple[str, str]] = []
        # module -> {imported module: names}
        self.imports: dict[str, dict[str, set[str]]] = {}

    # ---- the closure ----------------------------------------------------------------------
    def reach(self, key):
        if key in self.reached:
            return
        self.reached.append(key)
        obj = lookup(*key)
        if obj.TYPE == "CLASS":
            for field in obj._cont.values():
                self.walk(field)
        else:
            self.walk(obj)

    def walk(self, obj):
        ref = obj._typeref
        if isinstance(ref, ASN1RefType):
            if is_parameterised(ref):
                self.walk_children(obj)  # an instance: written as the type it expands to
            else:
                self.reach(ref.called)
            return
        if isinstance(ref, ASN1RefClassField):
            self.reach(ref.called)
            return
        if ref is not None:
            raise Unsupported(f"{obj._name}: reference kind {type(ref).__name__}")
        self.walk_children(obj)

    def walk_children(self, obj):
        if obj.TYPE in CONSTRUCTED:
            for component in obj._cont.values():
                self.walk(component)
        elif obj.TYPE in LISTS:
            self.walk(obj._cont)

    # ---- the text ---------------------------------------------------------------------------
    def ref_name(self, called, module: str) -> str:
        other, name = called
        if other != module:
            self.imports.setdefault(module, {}).setdefault(other, set()).add(name)
        return name

    def type_text(self, obj, module: str, indent: str) -> str:
        ref = obj._typeref
        if isinstance(ref, ASN1RefType) and not is_parameterised(ref):
            target = lookup(*ref.called)
            return self.ref_name(ref.called, module) + self.local_constraints(obj, target)
        if isinstance(ref, ASN1RefClassField):
            cls = self.ref_name(ref.called, module)
            return cls + "".join(f".&{f}" for f in ref.ced_path)
        kind = obj.TYPE
        if kind == "INTEGER":
            return "INTEGER" + self.named(obj) + self.value_constraint(obj)
        if kind == "ENUMERATED":
            return "ENUMERATED " + self.enumeration(obj)
        if kind == "BIT STRING":
            return "BIT STRING" + self.named(obj) + self.size_constraint(obj)
        if kind in CONSTRUCTED:
            return kind + " " + self.components(obj, module, indent)
        if kind in LISTS:
            item = obj._cont
            if item._tag is not None:
                raise Unsupported(f"{obj._name}: tagged list item")
            return f"{kind.split()[0]}{self.size_constraint(obj)} OF {self.type_text(item, module, indent)}"
        if kind in SIMPLE:
            return kind + self.alphabet_constraint(obj) + self.size_constraint(obj) + self.value_constraint(obj)
        raise Unsupported(f"{obj._name}: type {kind}")

    def local_constraints(self, obj, target) -> str:
        """The constraints written on a reference: those pycrate has on the referencing object
        and not on the referenced type (it copies the type's own onto every reference)."""
        text = ""
        if set_key(getattr(obj, "_const_val", None)) != set_key(getattr(target, "_const_val", None)):
            text += self.value_constraint(obj)
        if set_key(getattr(obj, "_const_sz", None)) != set_key(getattr(target, "_const_sz", None)):
            text += self.size_constraint(obj)
        if set_key(getattr(obj, "_const_alpha", None)) != set_key(getattr(target, "_const_alpha", None)):
            text += self.alphabet_constraint(obj)
        return text

    @staticmethod
    def set_text(s, element) -> str:
        root = [element(v) for v in s._rv] + [rng(r) for r in s._rr]
        if not root:
            raise Unsupported(f"empty constraint root {s!r}")
        text = " | ".join(root)
        if s._ev is not None:
            text += ", ..."
            ext = [element(v) for v in s._ev] + [rng(r) for r in s._er]
            if ext:
                text += ", " + " | ".join(ext)
        return text

    def value_constraint(self, obj) -> str:
        s = getattr(obj, "_const_val", None)
        return "" if s is None else f" ({self.set_text(s, value_text)})"

    def size_constraint(self, obj) -> str:
        s = getattr(obj, "_const_sz", None)
        return "" if s is None else f" (SIZE ({self.set_text(s, value_text)}))"

    def alphabet_constraint(self, obj) -> str:
        s = getattr(obj, "_const_alpha", None)
        return "" if s is None else f" (FROM ({self.set_text(s, value_text)}))"

    @staticmethod
    def named(obj) -> str:
        names = obj._cont
        if not names:
            return ""
        return " {" + ", ".join(f"{name}({value})" for name, value in names.items()) + "}"

    @staticmethod
    def enumeration(obj) -> str:
        values = obj._cont
        items = [f"{name}({values[name]})" for name in obj._root]
        if obj._ext is not None:
            items.append("...")
            items += [f"{name}({values[name]})" for name in obj._ext]
        return "{" + ", ".join(items) + "}"

    def components(self, obj, module: str, indent: str) -> str:
        inner = indent + "    "
        names = list(obj._cont)
        automatic = self.automatic_tags_match(obj)
        groups = getattr(obj, "_ext_group", None) or {}
        grouped = {name: gid for gid, members in groups.items() for name in members}

        def line(name):
            comp = obj._cont[name]
            tag = "" if automatic else tag_text(comp)
            text = f"{inner}{name} {tag}{self.type_text(comp, module, inner)}"
            if obj.TYPE != "CHOICE":
                if getattr(comp, "_def", None) is not None:
                    text += f" DEFAULT {default_text(comp)}"
                elif getattr(comp, "_opt", False):
                    text += " OPTIONAL"
            return text

        root = [n for n in names if n in obj._root]
        lines = [line(n) for n in root]
        if obj._ext is not None:
            lines.append(inner + "...")
            done = set()
            for name in obj._ext:
                if name in grouped:
                    gid = grouped[name]
                    if gid in done:
                        continue
                    done.add(gid)
                    members = [line(m).strip() for m in groups[gid]]
                    lines.append(inner + "[[ " + ", ".join(members) + " ]]")
                else:
                    lines.append(line(name))
        if not lines:
            return "{}"
        return "{\n" + ",\n".join(lines) + "\n" + indent + "}"

    @staticmethod
    def automatic_tags_match(obj) -> bool:
        order = list(obj._root) + list(obj._ext or [])
        if set(order) != set(obj._cont):
            raise Unsupported(f"{obj._name}: root + extension is not its components")
        for number, name in enumerate(obj._cont):
            comp = obj._cont[name]
            mode = "EXPLICIT" if comp.TYPE in EXPLICIT_BY_AUTOMATIC else "IMPLICIT"
            if comp._tag != (number, "CONTEXT-SPECIFIC", mode):
                return False
        return True

    def assignment(self, key) -> str:
        module, name = key
        obj = lookup(*key)
        if obj.TYPE == "CLASS":
            fields = []
            for fname, field in obj._cont.items():
                if field._mode == "VALUE":
                    text = f"    &{fname} {self.type_text(field, module, '    ')}"
                    if getattr(field, "_uniq", False):
                        text += " UNIQUE"
                elif field._mode == "TYPE" and field.TYPE == "OPEN_TYPE":
                    text = f"    &{fname}"
                else:
                    raise Unsupported(f"{name}: class field {fname}")
                if getattr(field, "_flag", None):
                    raise Unsupported(f"{name}: optional or default class field {fname}")
                fields.append(text)
            return f"{name} ::= CLASS {{\n" + ",\n".join(fields) + "\n}"
        if obj._tag is not None:
            ref = obj._typeref
            target_tag = lookup(*ref.called)._tag if isinstance(ref, ASN1RefType) else None
            if obj._tag != target_tag:
                raise Unsupported(f"{name}: tagged type assignment")
        return f"{name} ::= {self.type_text(obj, module, '')}"

    def modules(self) -> dict[str, str]:
        self.reach(ROOT)
        out = {}
        for module, source in MODULES.items():
            names = [n for n in source._obj_ if (module, n) in self.reached]
            if not names:
                continue
            body = "\n\n".join(self.assignment((module, n)) for n in names)
            imports = self.imports.get(module, {})
            lines = [
                f"-- {module}, as pycrate compiled it: generated by {GENERATED_BY}.",
                "-- Only the types the VAM reaches; see the script for what pycrate does not keep.",
                f"{module} {{ {' '.join(str(c) for c in source._oid_)} }}",
                "DEFINITIONS AUTOMATIC TAGS ::=",
                "BEGIN",
                "",
            ]
            if imports:
                lines.append("IMPORTS")
                for other in sorted(imports):
                    oid = " ".join(str(c) for c in MODULES[other]._oid_)
                    lines.append(f"    {', '.join(sorted(imports[other]))}")
                    lines.append(f"    FROM {other} {{ {oid} }}")
                lines[-1] += ";"
                lines.append("")
            lines += [body, "", "END", ""]
            out[module] = "\n".join(lines)
        return out


def rng(r) -> str:
    lb = "MIN" if r.lb is None else value_text(r.lb)
    ub = "MAX" if r.ub is None else value_text(r.ub)
    return f"{lb}..{ub}"


def value_text(v) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace('"', '""') + '"'
    raise Unsupported(f"value {v!r}")


def default_text(comp) -> str:
    v = comp._def
    kind = comp.TYPE
    if kind == "ENUMERATED":
        return v
    if kind == "BIT STRING":
        value, length = v
        return "'" + format(value, f"0{length}b") + "'B" if length else "''B"
    if kind == "OCTET STRING":
        return "'" + v.hex().upper() + "'H"
    if kind == "NULL":
        return "NULL"
    return value_text(v)


def tag_text(comp) -> str:
    number, cls, mode = comp._tag
    prefix = {"CONTEXT-SPECIFIC": "", "APPLICATION": "APPLICATION ", "PRIVATE": "PRIVATE ", "UNIVERSAL": "UNIVERSAL "}
    return f"[{prefix[cls]}{number}] {mode} "


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output_dir", type=Path)
    args = parser.parse_args()
    try:
        modules = Writer().modules()
    except Unsupported as e:
        print(f"pycrate_to_asn1: unsupported: {e}", file=sys.stderr)
        return 1
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for module, text in modules.items():
        (args.output_dir / f"{module}.asn").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

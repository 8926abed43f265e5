#!/usr/bin/env bash
# Builds the copy of c-its-parser 2.4.2 that Cargo.toml's [patch.crates-io] points at: the
# crates.io release (checksum-verified) with four changes.
#
# 1. It builds for wasm32-wasip2. c-its-parser (the ETSI ASN.1 codecs crates/etsi-its uses) takes `target_arch = "wasm32"`
# to mean "browser build with wasm-bindgen", but declares wasm-bindgen only for
# wasm32-unknown-unknown, so it does not compile for our components' wasm32-wasip2 ("use of
# unresolved module `wasm_bindgen`"). Every such cfg becomes `all(target_arch = "wasm32",
# target_os = "unknown")`; on wasm32-wasip2 it then builds as it does natively. Its `cdylib`
# crate type (for the browser package) is dropped: Cargo would link one for every build of ours.
#
# 2. Its TS 103 324 V2.1.1 CPM is compiled against CDD V2.2.1, which turned the four VRU
# sub-profiles (VruSubProfilePedestrian, -Bicyclist, -Motorcyclist, -Animal) from ENUMERATED into
# INTEGER (0..15). The CPM V2.1.1 module imports CDD V2.1.1 (major-version-3), where they are
# ENUMERATED: UPER sends the index among the root values (pedestrian: 3 bits, `max(15)` is index
# 4), not a 4-bit value. They become the V2.1.1 enumerations again, so a CPM with a VRU class is
# encoded as asn1tools and ika's asn1c codec encode it (crates/etsi-its/tests/cpm_vectors.rs).
# No other module c-its-parser compiles uses them.
#
# 3. `ConstraintWrappedCpmContainers` (the CPM's container list) is `WrappedCpmContainers` with a
# serially applied, non-extensible constraint; read so, the parent's extension marker is dropped
# and UPER sends the SIZE(1..8) count without an extension bit, as Vanetza and ika's asn1c codec
# do (rasn-compiler kept the bit). Others keep it (asn1tools on the unmodified ASN.1, ms-van3t's
# asn1c code): the field has both, and etsi_its::cpm::decode_with_list reads both. We write this
# one.
#
# 4. It builds on rasn 0.30 (the workspace's) instead of 0.28: rasn 0.28.15's UPER encoder writes
# a SEQUENCE OF beyond the root of an extensible SIZE with a wrong length (a CPM of 256 perceived
# objects or 129 sensors came back empty); 0.30 encodes it right, and the generated code
# compiles unchanged. One rasn in the build.
#
#   tools/patches/c-its-parser.sh <destination dir>
set -euo pipefail

VERSION=2.4.2
SHA256=06a9f64310e74860f18aee2d77b3898a42e3bd1bf6974245f0f33bdb7f9ae3f1
dest=$1

source "$(dirname "$0")/crate.sh"
begin_patch c-its-parser "$VERSION" "$SHA256" "$dest"

python3 - "$work/c-its-parser-$VERSION" <<'PY'
import pathlib, sys
root = pathlib.Path(sys.argv[1])
wasm = 'target_arch = "wasm32"'
browser = 'all(target_arch = "wasm32", target_os = "unknown")'
count = 0
for path in sorted((root / "src").rglob("*.rs")):
    src = path.read_text()
    if wasm in src:
        count += src.count(wasm)
        path.write_text(src.replace(wasm, browser))
if count != 104:
    sys.exit(f"c-its-parser patch: expected 104 wasm32 cfgs, found {count}")
manifest = root / "Cargo.toml"
toml = manifest.read_text()
lib_types = 'crate-type = [\n    "lib",\n    "cdylib",\n]'
if toml.count(lib_types) != 1:
    sys.exit("c-its-parser patch: expected one crate-type list with lib and cdylib")
toml = toml.replace(lib_types, 'crate-type = ["lib"]')
rasn = '[dependencies.rasn]\nversion = "0.28.7"'
if toml.count(rasn) != 1:
    sys.exit("c-its-parser patch: expected one rasn 0.28.7 dependency")
manifest.write_text(toml.replace(rasn, '[dependencies.rasn]\nversion = "0.30"'))

def replace_once(path, old, new, what):
    src = path.read_text()
    if src.count(old) != 1:
        sys.exit(f"c-its-parser patch: expected one {what}, found {src.count(old)}")
    path.write_text(src.replace(old, new))

# CDD V2.1.1's VRU sub-profile enumerations: (type, [(value, identifier)]).
profiles = {
    "VruSubProfilePedestrian": "unavailable ordinary-pedestrian road-worker first-responder",
    "VruSubProfileBicyclist": "unavailable bicyclist wheelchair-user horse-and-rider rollerskater "
    "e-scooter personal-transporter pedelec speed-pedelec",
    "VruSubProfileMotorcyclist": "unavailable moped motorcycle motorcycle-and-sidecar-right "
    "motorcycle-and-sidecar-left",
    "VruSubProfileAnimal": "unavailable wild-animal farm-animal service-animal",
}
cdd = root / "src/standards/cdd_2_2_1.rs"
for name, identifiers in profiles.items():
    values = list(enumerate(identifiers.split())) + [(15, "max")]
    variants = "".join(
        f'        #[rasn(identifier = "{ident}")]\n        {ident.replace("-", "_")} = {value},\n'
        for value, ident in values
    )
    replace_once(
        cdd,
        "    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]\n"
        f'    #[rasn(delegate, value("0..=15"))]\n    pub struct {name}(pub u8);\n',
        "    #[doc = \"cits patch: ENUMERATED as in CDD V2.1.1, which CPM V2.1.1 imports\"]\n"
        "    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]\n"
        f"    #[rasn(enumerated)]\n    pub enum {name} {{\n{variants}    }}\n",
        name,
    )

replace_once(
    root / "src/standards/cpm_2_1_1.rs",
    "    #[rasn(delegate)]\n    pub struct ConstraintWrappedCpmContainers(pub WrappedCpmContainers);",
    "    #[rasn(delegate, size(\"1..=8\"))]\n"
    "    pub struct ConstraintWrappedCpmContainers(pub SequenceOf<WrappedCpmContainer>);",
    "ConstraintWrappedCpmContainers",
)
PY

install_crate "$work/c-its-parser-$VERSION" "$dest"

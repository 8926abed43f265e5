#!/usr/bin/env bash
# Generates the VAM codec, crates/etsi-its/src/vam/generated.rs (`make codecs`; `make
# codecs-check` writes it elsewhere and compares): pycrate's compilation of ETSI's ASN.1 written
# back out as ASN.1 (pycrate_to_asn1.py), compiled by rasn-compiler, formatted by rustfmt with the
# repository's rustfmt.toml. No step edits the generated code.
#
#   tools/codecs/generate.sh PYTHON RASN_COMPILER_CLI OUTPUT.rs
set -euo pipefail

python=$1 compiler=$2 out=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" "$repo/tools/codecs/pycrate_to_asn1.py" "$work/asn"
# It reports each module found on stdout; errors go to stderr and fail the step.
"$compiler" --directory "$work/asn" --output-path "$work/raw.rs" >/dev/null
[[ -s "$work/raw.rs" ]] || { echo "generate.sh: rasn-compiler wrote nothing" >&2; exit 1; }

pycrate=$("$python" -c 'import importlib.metadata as m; print(m.version("pycrate"))')
{
    echo "// @generated: the VRU Awareness Message (ETSI TS 103 300-3 V2.1.1) and the types it uses,"
    echo "// compiled by $("$compiler" --version) from the ASN.1 that tools/codecs/pycrate_to_asn1.py"
    echo "// writes out of pycrate $pycrate (pycrate_asn1dir.ITS_VAM_3), formatted by rustfmt."
    echo "// Do not edit: \`make codecs\` regenerates it (tools/codecs/generate.sh), \`make codecs-check\`"
    echo "// compares."
    echo
    cat "$work/raw.rs"
} >"$work/generated.rs"
rustfmt --edition 2021 --config-path "$repo/rustfmt.toml" "$work/generated.rs"
mkdir -p "$(dirname "$out")"
mv "$work/generated.rs" "$out"

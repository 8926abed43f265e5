#!/usr/bin/env bash
# Generates the VAM codecs (`make codecs`; `make codecs-check` writes them elsewhere and
# compares), each compiled by rasn-compiler and formatted by rustfmt with the repository's
# rustfmt.toml. No step edits the generated code.
# * TS 103 300-3 V2.1.1 (protocolVersion 2), crates/etsi-its/src/vam/generated.rs: pycrate's
#   compilation of ETSI's ASN.1 written back out as ASN.1 (pycrate_to_asn1.py).
# * TS 103 300-3 V2.2.1 (protocolVersion 3), crates/etsi-its/src/vam/v3/generated.rs: ETSI's
#   ASN.1 as the PyPI package v2xflexstack ships it (pinned below, its wheel's sha256 checked),
#   parsed by asn1tools and written out reduced to what the VAM reaches (asn1tools_to_asn1.py).
#
#   tools/codecs/generate.sh PYTHON RASN_COMPILER_CLI V2_OUTPUT.rs V3_OUTPUT.rs
#
# PYTHON needs pycrate and asn1tools (the Makefile's venv, PY_PACKAGES) and pip.
set -euo pipefail

python=$1 compiler=$2 out=$3 out_v3=$4
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# v2xflexstack (PyPI, i2CAT's FlexStack; AGPL-3.0 for its code, the ASN.1 in it is ETSI's,
# BSD-3-Clause): only the wheel is downloaded, nothing of it is installed or run.
FLEXSTACK_VERSION=0.11.2
FLEXSTACK_SHA256=14255b55666525f99c816cf47b8186b5479cd3a3ff9b2201e5b26312f7953984
FLEXSTACK_VAM=flexstack/facilities/vru_awareness_service/vam_asn1.py

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

# ---- protocolVersion 3 --------------------------------------------------------------------------
wheel="v2xflexstack-$FLEXSTACK_VERSION-py3-none-any.whl"
"$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
    --dest "$work/wheel" "v2xflexstack==$FLEXSTACK_VERSION"
echo "$FLEXSTACK_SHA256  $work/wheel/$wheel" | sha256sum -c --quiet - ||
    { echo "generate.sh: $wheel is not the one pinned" >&2; exit 1; }
"$python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])' \
    "$work/wheel/$wheel" "$FLEXSTACK_VAM" "$work/wheel"
"$python" "$repo/tools/codecs/asn1tools_to_asn1.py" "$work/wheel/$FLEXSTACK_VAM" "$work/asn-v3"
"$compiler" --directory "$work/asn-v3" --output-path "$work/raw-v3.rs" >/dev/null
[[ -s "$work/raw-v3.rs" ]] || { echo "generate.sh: rasn-compiler wrote nothing (V2.2.1)" >&2; exit 1; }

asn1tools=$("$python" -c 'import importlib.metadata as m; print(m.version("asn1tools"))')
{
    echo "// @generated: the VRU Awareness Message of protocolVersion 3 (ETSI TS 103 300-3 V2.2.1,"
    echo "// VAM-PDU-Descriptions major-version-3 minor-version-1) and the Common Data Dictionary types"
    echo "// it uses, compiled by $("$compiler" --version) from the ASN.1 that"
    echo "// tools/codecs/asn1tools_to_asn1.py (asn1tools $asn1tools) writes out of ETSI's text as the"
    echo "// PyPI package v2xflexstack $FLEXSTACK_VERSION ships it, formatted by rustfmt."
    echo "// Do not edit: \`make codecs\` regenerates it (tools/codecs/generate.sh), \`make codecs-check\`"
    echo "// compares."
    echo
    cat "$work/raw-v3.rs"
} >"$work/generated-v3.rs"
rustfmt --edition 2021 --config-path "$repo/rustfmt.toml" "$work/generated-v3.rs"

mkdir -p "$(dirname "$out")" "$(dirname "$out_v3")"
mv "$work/generated.rs" "$out"
mv "$work/generated-v3.rs" "$out_v3"

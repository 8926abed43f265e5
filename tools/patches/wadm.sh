#!/usr/bin/env bash
# Builds the copy of wadm 0.21.1 that Cargo.toml's [patch.crates-io] points at: the crates.io
# release (checksum-verified) with two changes. First: putting a manifest version that wadm holds already,
# with the same content, is answered as a success (nothing is stored twice) instead of "Manifest
# version … already exists".
#
# Why: `wash app deploy FILE` is a put followed by a deploy of that version. The README's
# "Deploying by hand" runs `wash app deploy wadm/cits-pipeline.yaml` and
# `… cits-pipeline-fused.yaml` on the lattice `make run` started, which stored both versions
# already (so that the dashboard and `wash app deploy cits-pipeline VERSION` can switch between
# them): the put failed and so did the deploy. Now deploying the committed file again deploys
# the stored version; a different manifest under a stored version is still refused.
#
#   tools/patches/wadm.sh <destination dir>
set -euo pipefail

VERSION=0.21.1
SHA256=815f6a947d5d2add77a4ea6eb8a131e5a73bfb6e4eec61b8055632ec72ed82ae
dest=$1

source "$(dirname "$0")/crate.sh"
begin_patch wadm "$VERSION" "$SHA256" "$dest"

python3 - "$work/wadm-$VERSION/src/server/handlers.rs" <<'PY'
import sys
path = sys.argv[1]
src = open(path).read()
refused = """        let incoming_version = manifest.version().to_owned();
        if !current_manifests.add_version(manifest) {
"""
if src.count(refused) != 1:
    sys.exit(f"wadm patch: expected one version check in put_model, found {src.count(refused)}")
src = src.replace(refused, """        let incoming_version = manifest.version().to_owned();
        // cits patch (tools/patches/wadm.sh): the same version with the same content is stored.
        if current_manifests.get_version(&incoming_version) == Some(&manifest) {
            let resp = PutModelResponse {
                current_version: incoming_version.clone(),
                result: PutResult::NewVersion,
                name: manifest_name.clone(),
                total_versions: current_manifests.count(),
                message: format!(
                    "Manifest {manifest_name} version {incoming_version} is stored already (identical)"
                ),
            };
            self.send_reply(msg.reply, serde_json::to_vec(&resp).unwrap_or_default())
                .await;
            return;
        }
        if !current_manifests.add_version(manifest) {
""")
open(path, "w").write(src)
PY

# Second change: wadm makes every stream and bucket of its own with one replica, so in a NATS
# cluster its state lives on one server and wadm stops when that one is lost. WADM_STREAM_REPLICAS
# (the lattice supervisor sets 3 in a cluster) gives them that many.
python3 - "$work/wadm-$VERSION/src/nats.rs" <<'PY'
import sys
path = sys.argv[1]
src = open(path).read()
one = "num_replicas: 1,"
if src.count(one) != 6:
    sys.exit(f"wadm patch: expected six streams and buckets with one replica, found {src.count(one)}")
src = src.replace(one, "num_replicas: stream_replicas(),")
src += '''
/// cits patch (tools/patches/wadm.sh): replicas of wadm's streams and buckets.
fn stream_replicas() -> usize {
    std::env::var("WADM_STREAM_REPLICAS").ok().and_then(|r| r.parse().ok()).filter(|&r| r >= 1).unwrap_or(1)
}
'''
open(path, "w").write(src)
PY

install_crate "$work/wadm-$VERSION" "$dest"

// Compiles proto/ with protox (pure Rust), so no protoc install is needed on any machine.
fn main() {
    // Relative to this package, so each clone watches its own copy. Clones sharing one target dir
    // share this script's output too, and cargo compares mtimes: a worktree built after main's
    // proto last changed leaves its own generated code for main (seen 2026-11-27: `Turn` missing).
    // Touch the proto after building another clone into the same target dir.
    const PROTO: &str = "../../proto/cits/v1/pipeline.proto";
    println!("cargo:rerun-if-changed={PROTO}");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = std::path::Path::new(&manifest_dir).join("../../proto");
    let fds = protox::compile([root.join("cits/v1/pipeline.proto")], [&root]).expect("proto/ does not compile");
    prost_build::Config::new().compile_fds(fds).expect("prost code generation failed");
}

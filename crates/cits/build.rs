// Compiles proto/ with protox (pure Rust), so no protoc install is needed on any machine.
fn main() {
    // Relative to this package: clones at other paths sharing one target dir each watch their own
    // copy (an absolute path would leave another clone's stale generated code in place).
    const PROTO: &str = "../../proto/cits/v1/pipeline.proto";
    println!("cargo:rerun-if-changed={PROTO}");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = std::path::Path::new(&manifest_dir).join("../../proto");
    let fds = protox::compile([root.join("cits/v1/pipeline.proto")], [&root]).expect("proto/ does not compile");
    prost_build::Config::new().compile_fds(fds).expect("prost code generation failed");
}

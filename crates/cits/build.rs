// Compiles proto/ with protox (pure Rust), so no protoc install is needed on any machine.
fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let file = root.join("cits/v1/pipeline.proto");
    println!("cargo:rerun-if-changed={}", file.display());
    let fds = protox::compile([&file], [&root]).expect("proto/ does not compile");
    prost_build::Config::new().compile_fds(fds).expect("prost code generation failed");
}

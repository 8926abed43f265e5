use super::*;

/// The smallest component there is: the component-model preamble.
const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\x00\x01\x00";

fn identity(keys: &Path) -> Identity {
    Identity { name: "decoder".into(), version: "0.1.0".into(), revision: 3, keys: keys.to_path_buf() }
}

#[test]
fn a_signed_component_carries_claims_the_account_signed() {
    let dir = tempfile::tempdir().unwrap();
    let wasm = dir.path().join("decoder.wasm");
    std::fs::write(&wasm, EMPTY_COMPONENT).unwrap();
    let args = ComponentArgs { wasm: wasm.clone(), identity: identity(&dir.path().join("keys")), destination: None };
    let out = sign_component(&args).unwrap();
    assert_eq!(out, dir.path().join("decoder_s.wasm"));

    let token = wascap::wasm::extract_claims(std::fs::read(&out).unwrap()).unwrap().expect("claims embedded");
    let claims = token.claims;
    let account = account(&args.identity).unwrap();
    let subject = key(&dir.path().join("keys"), "decoder_module", KeyPairType::Module).unwrap();
    assert_eq!(claims.issuer, account.public_key());
    assert_eq!(claims.subject, subject.public_key());
    let meta = claims.metadata.unwrap();
    assert_eq!(meta.name.as_deref(), Some("decoder"));
    assert_eq!((meta.rev, meta.ver.as_deref()), (Some(3), Some("0.1.0")));
    assert_eq!(meta.tags, Some(vec![EXPERIMENTAL_TAG.to_string()]));

    // Signed again: the same keys, not new ones (a new subject would be another component).
    sign_component(&args).unwrap();
    let again = wascap::wasm::extract_claims(std::fs::read(&out).unwrap()).unwrap().unwrap().claims;
    assert_eq!((again.issuer, again.subject), (account.public_key(), subject.public_key()));
}

#[test]
fn keys_are_private_and_not_webassembly_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys");
    let text = dir.path().join("notes.wasm");
    std::fs::write(&text, b"hello").unwrap();
    let args = ComponentArgs { wasm: text, identity: identity(&keys), destination: None };
    assert!(sign_component(&args).unwrap_err().to_string().contains("is not WebAssembly"));

    use std::os::unix::fs::PermissionsExt as _;
    account(&args.identity).unwrap();
    let mode = std::fs::metadata(keys.join("user_account.nk")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[tokio::test]
async fn a_provider_archive_holds_the_binary_and_signed_claims() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("messaging-nats-provider");
    std::fs::write(&binary, b"\x7fELF not really").unwrap();
    let wit = dir.path().join("wit");
    std::fs::create_dir(&wit).unwrap();
    std::fs::write(wit.join("world.wit"), "package cits:probe;\n\nworld probe {\n  export run: func();\n}\n").unwrap();
    let args = ProviderArgs {
        binary: binary.clone(),
        identity: Identity { name: "cits-messaging-nats".into(), ..identity(&dir.path().join("keys")) },
        vendor: "cits".into(),
        wit_dir: Some(wit),
        destination: dir.path().join("messaging-nats.par"),
    };
    pack_provider(&args).await.unwrap();

    let par = provider_archive::ProviderArchive::try_load_file(&args.destination).await.unwrap();
    let target = format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS);
    assert_eq!(par.target_bytes(&target).unwrap(), std::fs::read(&binary).unwrap());
    assert!(par.wit_world().is_some_and(|w| !w.is_empty()));
    let claims = par.claims().unwrap();
    let meta = claims.metadata.as_ref().unwrap();
    assert_eq!((meta.name.as_deref(), meta.vendor.as_str()), (Some("cits-messaging-nats"), "cits"));
    let subject = key(&dir.path().join("keys"), "messaging-nats-provider_service", KeyPairType::Service).unwrap();
    assert_eq!(claims.subject, subject.public_key());
    assert_eq!(claims.issuer, account(&args.identity).unwrap().public_key());
}

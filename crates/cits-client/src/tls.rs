//! TLS where a lattice's traffic crosses a network: between the servers of a NATS cluster
//! (routes, certificates checked both ways) and from RSUs to the MQTT listeners. The lattice has
//! a CA of its own, made by `cits lattice up` under `<state>/tls/` with one server certificate for
//! every server of the lattice (routes present it as clients too).
//!
//! - `CITS_TLS_NAMES`: more names and addresses the servers are reached by, comma-separated
//!   (`hub-1.example.org,10.0.0.5`), besides `127.0.0.1` and `localhost`.
//! - `CITS_MQTT_CA`: the CA file an RSU tool (`cits replay`, `cits demo`) checks the MQTT
//!   listener's certificate against; set, it speaks MQTT over TLS.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::CertificateDer;

/// The files of a lattice's TLS directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files {
    /// The lattice's CA certificate: what clients and other servers check against.
    pub ca: PathBuf,
    /// The servers' certificate, signed by the CA, and its key.
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl Files {
    pub fn in_dir(dir: &Path) -> Self {
        Self { ca: dir.join("ca.pem"), cert: dir.join("server.pem"), key: dir.join("server-key.pem") }
    }
}

/// How long the certificates made here are valid.
const VALID_DAYS: i64 = 825;

/// The TLS files in `dir`, made (a new CA and server certificate for `names` and loopback) unless
/// all of them are there: a lattice restarted on its state keeps its CA, so RSUs keep trusting it.
pub fn ensure(dir: &Path, names: &[String]) -> anyhow::Result<Files> {
    let files = Files::in_dir(dir);
    if [&files.ca, &files.cert, &files.key].iter().all(|f| f.is_file()) {
        return Ok(files);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let now = time::OffsetDateTime::now_utc();
    let (not_before, not_after) = (now - time::Duration::days(1), now + time::Duration::days(VALID_DAYS));

    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.distinguished_name.push(DnType::CommonName, "C-ITS lattice CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    (ca.not_before, ca.not_after) = (not_before, not_after);
    let ca_key = KeyPair::generate()?;
    let ca_cert = ca.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca, ca_key);

    let mut all: Vec<String> = vec!["127.0.0.1".into(), "localhost".into()];
    all.extend(names.iter().filter(|n| !all.contains(n)).cloned().collect::<Vec<_>>());
    let mut server =
        CertificateParams::new(all).context("a name in CITS_TLS_NAMES is neither a DNS name nor an IP address")?;
    server.distinguished_name.push(DnType::CommonName, "C-ITS lattice server");
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    // Routes connect with the same certificate they serve with.
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth, ExtendedKeyUsagePurpose::ClientAuth];
    server.use_authority_key_identifier_extension = true;
    (server.not_before, server.not_after) = (not_before, not_after);
    let server_key = KeyPair::generate()?;
    let server_cert = server.signed_by(&server_key, &issuer)?;

    write_private(&files.key, &server_key.serialize_pem())?;
    std::fs::write(&files.cert, server_cert.pem())?;
    // The CA file last: its presence says the directory is complete.
    std::fs::write(&files.ca, ca_cert.pem())?;
    Ok(files)
}

fn write_private(path: &Path, pem: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    f.write_all(pem.as_bytes())?;
    Ok(())
}

/// The extra server names of `CITS_TLS_NAMES`.
pub fn names_from_env() -> Vec<String> {
    std::env::var("CITS_TLS_NAMES")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect()
}

/// The CA of `CITS_MQTT_CA`, if set.
pub fn mqtt_ca_from_env() -> Option<PathBuf> {
    std::env::var_os("CITS_MQTT_CA").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// MQTT over TLS, the listener's certificate checked against the CA in `ca` (ring as crypto
/// provider, whichever others the build has).
pub fn mqtt_transport(ca: &Path) -> anyhow::Result<rumqttc::Transport> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).with_context(|| format!("cannot read the CA {}", ca.display()))? {
        roots.add(cert.with_context(|| format!("{} is not a PEM certificate file", ca.display()))?)?;
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(rumqttc::Transport::tls_with_config(rumqttc::TlsConfiguration::Rustls(Arc::new(config))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::client::danger::ServerCertVerifier as _;

    #[test]
    fn a_lattice_keeps_its_ca_and_names_its_servers() {
        let dir = std::env::temp_dir().join(format!("cits-tls-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files = ensure(&dir, &["hub-1.example.org".into(), "10.0.0.5".into()]).unwrap();
        let ca = std::fs::read_to_string(&files.ca).unwrap();
        assert!(ca.starts_with("-----BEGIN CERTIFICATE-----"));
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&files.key).unwrap().permissions().mode() & 0o777, 0o600);
        // Made once: a second call keeps them.
        assert_eq!(ensure(&dir, &[]).unwrap(), files);
        assert_eq!(std::fs::read_to_string(&files.ca).unwrap(), ca);
        // The server certificate verifies against the CA for every name it was made for, and
        // for no other.
        let roots = {
            let mut r = rustls::RootCertStore::empty();
            r.add(CertificateDer::from_pem_file(&files.ca).unwrap()).unwrap();
            Arc::new(r)
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(roots, provider).build().unwrap();
        let cert = CertificateDer::from_pem_file(&files.cert).unwrap();
        let now = rustls::pki_types::UnixTime::now();
        for name in ["127.0.0.1", "localhost", "hub-1.example.org", "10.0.0.5"] {
            let server = rustls::pki_types::ServerName::try_from(name).unwrap();
            verifier.verify_server_cert(&cert, &[], &server, &[], now).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let other = rustls::pki_types::ServerName::try_from("evil.example.org").unwrap();
        assert!(verifier.verify_server_cert(&cert, &[], &other, &[], now).is_err());
        assert!(mqtt_transport(&files.ca).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Who may connect to the lattice's NATS server, and what each may touch: NATS decentralized
//! authentication ("operator mode"), kept in one directory of the lattice's state.
//!
//! An operator key signs two accounts: `SYS` (the server's system account) and `CITS` (everything
//! of the platform: JetStream streams, the lattice's control and RPC subjects, the RSUs' MQTT
//! sessions). The `CITS` account key signs the users — one per lattice part (host, wadm, policy
//! service, operator tools, dashboard) and one per RSU. The server trusts the operator and holds
//! the account JWTs (memory resolver, [`Authority::resolver_config`]); a user proves itself with
//! its JWT and a signature of the server's nonce by its seed (a `.creds` file).
//!
//! RSUs speak MQTT, which cannot sign a nonce: an RSU's JWT is a bearer token, passed as the MQTT
//! password, valid only on MQTT connections, allowed to publish `cits.cpm.<rsu>` (its CPMs),
//! `cits.cam.<rsu>` and `cits.vam.<rsu>` (the CAMs and VAMs it hears) and subscribe
//! `cits.denm.<rsu>` and nothing else (plus `$MQTT.sub.>`, where the server delivers QoS 1
//! subscriptions). Adding an RSU needs no server change (the account's signature is enough);
//! removing one revokes its key in the account JWT, which the server picks up on a config reload.
//!
//! Directory layout (created by [`Authority::init`]; seeds are written 0600, never committed):
//!   operator.nk, operator.jwt        operator seed and its self-signed JWT (issued once)
//!   accounts/{SYS,CITS}.nk           account seeds (SYS.jwt issued once; CITS's with each change)
//!   accounts/CITS.revocations.json   revoked user keys → revocation time
//!   users/<name>.creds               lattice parts: JWT + seed
//!   rsus/<rsu>.jwt, rsus/<rsu>.json  an RSU's bearer token (MQTT password) and its public key
//!   resolver.conf                    included by the server config
//!   secrets/{transit,encryption}.xk  the secrets backend's curve keys (secrets-nats-kv: secrets
//!                                    sealed in transit to it, and at rest in its KV bucket)

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use nkeys::KeyPair;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

/// The account of the platform's users.
pub const ACCOUNT: &str = "CITS";
const SYSTEM_ACCOUNT: &str = "SYS";

/// What a lattice part's user may publish and subscribe to (NATS subject patterns).
#[derive(Debug, Clone, PartialEq)]
pub struct Permissions {
    pub publish: Vec<String>,
    pub subscribe: Vec<String>,
}

impl Permissions {
    /// Everything in the account (host, wadm and operator tools need the control, RPC, JetStream
    /// and pipeline subjects alike).
    pub fn all() -> Self {
        Self { publish: vec![">".into()], subscribe: vec![">".into()] }
    }
}

/// The lattice's NATS authority: its keys and the JWTs they sign.
pub struct Authority {
    dir: PathBuf,
    operator: KeyPair,
    system: KeyPair,
    account: KeyPair,
}

/// What is kept of an RSU user: enough to revoke it and to tell the operator about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RsuRecord {
    pub rsu: String,
    pub public_key: String,
    pub issued_at: u64,
}

impl Authority {
    /// Opens the authority in `dir`, creating its keys the first time.
    pub fn init(dir: &Path) -> anyhow::Result<Self> {
        for sub in ["accounts", "users", "rsus"] {
            fs::create_dir_all(dir.join(sub)).with_context(|| format!("cannot create {}", dir.join(sub).display()))?;
        }
        let authority = Self {
            operator: load_or_create_seed(&dir.join("operator.nk"), KeyPair::new_operator)?,
            system: load_or_create_seed(
                &dir.join("accounts").join(format!("{SYSTEM_ACCOUNT}.nk")),
                KeyPair::new_account,
            )?,
            account: load_or_create_seed(&dir.join("accounts").join(format!("{ACCOUNT}.nk")), KeyPair::new_account)?,
            dir: dir.to_path_buf(),
        };
        if !authority.resolver_config_path().exists() {
            authority.write_resolver_config()?;
        }
        Ok(authority)
    }

    /// The public key of the platform's account (a leaf node's remote names it).
    pub fn account_public_key(&self) -> String {
        self.account.public_key()
    }

    /// The secrets backend's curve key (xkey) seed `name` (`transit`, `encryption`), made once:
    /// secrets stored before must stay readable, so the key is never replaced.
    pub fn secrets_xkey(&self, name: &str) -> anyhow::Result<PathBuf> {
        check_name(name)?;
        let dir = self.dir.join("secrets");
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(format!("{name}.xk"));
        if let Ok(seed) = fs::read_to_string(&path) {
            nkeys::XKey::from_seed(seed.trim()).with_context(|| format!("{} is not an xkey seed", path.display()))?;
            return Ok(path);
        }
        write_private(&path, nkeys::XKey::new().seed()?.as_bytes())?;
        Ok(path)
    }

    /// Opens an existing authority (tools reading tokens must never create a new one).
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        if !dir.join("operator.nk").exists() {
            bail!("{} holds no NATS authority (cits lattice up creates it)", dir.display());
        }
        Self::init(dir)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The server config fragment that trusts this operator and holds its accounts (memory
    /// resolver: the accounts change only with this file, re-read on a config reload).
    pub fn resolver_config(&self) -> anyhow::Result<String> {
        let sys = self.system.public_key();
        let acc = self.account.public_key();
        Ok(format!(
            "# Generated by cits-nats-auth; rewritten when an RSU is revoked.\n\
             operator: {operator}\nsystem_account: {sys}\nresolver: MEMORY\nresolver_preload: {{\n  \
             {sys}: {sys_jwt}\n  {acc}: {acc_jwt}\n}}\n",
            // Issued once: the server refuses a config reload that changes its trusted operator.
            operator = self.issued_once("operator.jwt", || self.operator_jwt())?,
            sys_jwt = self.issued_once(&format!("accounts/{SYSTEM_ACCOUNT}.jwt"), || self.system_account_jwt())?,
            acc_jwt = self.account_jwt()?,
        ))
    }

    /// The JWT kept in `file` (relative to the directory), issued by `issue` the first time.
    fn issued_once(&self, file: &str, issue: impl FnOnce() -> anyhow::Result<String>) -> anyhow::Result<String> {
        let path = self.dir.join(file);
        if let Ok(jwt) = fs::read_to_string(&path) {
            return Ok(jwt.trim().to_string());
        }
        let jwt = issue()?;
        write_private(&path, jwt.as_bytes())?;
        Ok(jwt)
    }

    pub fn resolver_config_path(&self) -> PathBuf {
        self.dir.join("resolver.conf")
    }

    fn write_resolver_config(&self) -> anyhow::Result<()> {
        write_private(&self.resolver_config_path(), self.resolver_config()?.as_bytes())
    }

    /// The `.creds` file of lattice part `name`, issued the first time it is asked for.
    pub fn user_creds(&self, name: &str, permissions: &Permissions) -> anyhow::Result<PathBuf> {
        check_name(name)?;
        let path = self.dir.join("users").join(format!("{name}.creds"));
        if !path.exists() {
            let user = KeyPair::new_user();
            let jwt = self.user_jwt(name, &user, permissions, false, &[])?;
            write_private(&path, creds_file(&jwt, &user.seed()?).as_bytes())?;
        }
        Ok(path)
    }

    /// Issues RSU `rsu` its MQTT bearer token (a fresh key each time); returns the token's file.
    pub fn add_rsu(&self, rsu: &str) -> anyhow::Result<PathBuf> {
        check_name(rsu)?;
        let user = KeyPair::new_user();
        let permissions = Permissions {
            publish: vec![format!("cits.cpm.{rsu}"), format!("cits.cam.{rsu}"), format!("cits.vam.{rsu}")],
            // QoS 1 subscriptions are delivered by the server's MQTT layer on `$MQTT.sub.<id>`.
            subscribe: vec![format!("cits.denm.{rsu}"), "$MQTT.sub.>".into()],
        };
        let jwt = self.user_jwt(rsu, &user, &permissions, true, &["MQTT"])?;
        let record = RsuRecord { rsu: rsu.to_string(), public_key: user.public_key(), issued_at: now_s() };
        write_private(&self.rsu_path(rsu, "jwt"), jwt.as_bytes())?;
        write_private(&self.rsu_path(rsu, "json"), serde_json::to_vec_pretty(&record)?.as_slice())?;
        Ok(self.rsu_path(rsu, "jwt"))
    }

    /// Revokes RSU `rsu`'s key; the server drops its connections at the next config reload.
    pub fn remove_rsu(&self, rsu: &str) -> anyhow::Result<RsuRecord> {
        check_name(rsu)?;
        let record: RsuRecord = serde_json::from_slice(
            &fs::read(self.rsu_path(rsu, "json")).with_context(|| format!("RSU {rsu} is not registered"))?,
        )?;
        let mut revoked = self.revocations()?;
        // Revokes every JWT of this key issued up to now (inclusive, in seconds).
        revoked.insert(record.public_key.clone(), now_s());
        write_private(&self.revocations_path(), serde_json::to_vec_pretty(&revoked)?.as_slice())?;
        fs::remove_file(self.rsu_path(rsu, "jwt")).ok();
        fs::remove_file(self.rsu_path(rsu, "json"))?;
        self.write_resolver_config()?;
        Ok(record)
    }

    /// The RSUs that hold a valid token.
    pub fn rsus(&self) -> anyhow::Result<Vec<RsuRecord>> {
        let mut rsus = Vec::new();
        for entry in fs::read_dir(self.dir.join("rsus"))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "json") {
                rsus.push(serde_json::from_slice(&fs::read(&path)?)?);
            }
        }
        rsus.sort_by(|a: &RsuRecord, b| a.rsu.cmp(&b.rsu));
        Ok(rsus)
    }

    /// RSU `rsu`'s MQTT password (its bearer JWT), if it is registered.
    pub fn rsu_token(&self, rsu: &str) -> anyhow::Result<String> {
        check_name(rsu)?;
        fs::read_to_string(self.rsu_path(rsu, "jwt")).with_context(|| format!("RSU {rsu} has no token"))
    }

    fn rsu_path(&self, rsu: &str, ext: &str) -> PathBuf {
        self.dir.join("rsus").join(format!("{rsu}.{ext}"))
    }

    fn revocations_path(&self) -> PathBuf {
        self.dir.join("accounts").join(format!("{ACCOUNT}.revocations.json"))
    }

    fn revocations(&self) -> anyhow::Result<BTreeMap<String, u64>> {
        match fs::read(self.revocations_path()) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(e.into()),
        }
    }

    fn operator_jwt(&self) -> anyhow::Result<String> {
        let nats = json!({"type": "operator", "version": 2, "system_account": self.system.public_key()});
        encode(&self.operator, &self.operator.public_key(), "cits-operator", nats)
    }

    fn system_account_jwt(&self) -> anyhow::Result<String> {
        let nats = json!({
            "type": "account", "version": 2,
            "limits": {"subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
                       "wildcards": true, "conn": -1, "leaf": -1},
        });
        encode(&self.operator, &self.system.public_key(), SYSTEM_ACCOUNT, nats)
    }

    fn account_jwt(&self) -> anyhow::Result<String> {
        let nats = json!({
            "type": "account", "version": 2,
            // No NATS limits; JetStream on without limits (streams, KV, MQTT sessions).
            "limits": {"subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
                       "wildcards": true, "conn": -1, "leaf": -1,
                       "mem_storage": -1, "disk_storage": -1, "streams": -1, "consumer": -1},
            "revocations": self.revocations()?,
        });
        encode(&self.operator, &self.account.public_key(), ACCOUNT, nats)
    }

    fn user_jwt(
        &self,
        name: &str,
        user: &KeyPair,
        permissions: &Permissions,
        bearer: bool,
        connection_types: &[&str],
    ) -> anyhow::Result<String> {
        let mut nats = json!({
            "type": "user", "version": 2,
            "pub": {"allow": permissions.publish},
            "sub": {"allow": permissions.subscribe},
            "subs": -1, "data": -1, "payload": -1,
        });
        if bearer {
            nats["bearer_token"] = json!(true);
        }
        if !connection_types.is_empty() {
            nats["allowed_connection_types"] = json!(connection_types);
        }
        encode(&self.account, &user.public_key(), name, nats)
    }
}

/// A signed NATS JWT (v2): `base64url(header).base64url(claims).base64url(ed25519 signature)`.
fn encode(issuer: &KeyPair, subject: &str, name: &str, nats: Value) -> anyhow::Result<String> {
    let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ed25519-nkey"}"#);
    let mut claims = json!({
        "iat": now_s(), "iss": issuer.public_key(), "name": name, "sub": subject, "nats": nats,
    });
    // A unique id per JWT: the hash of its claims.
    let id = Sha256::digest(serde_json::to_vec(&claims)?);
    claims["jti"] = json!(URL_SAFE_NO_PAD.encode(id));
    let body = format!("{header}.{}", URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims)?));
    let signature = issuer.sign(body.as_bytes()).map_err(|e| anyhow::anyhow!("cannot sign: {e}"))?;
    Ok(format!("{body}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// The claims of a JWT, unverified (for tests and diagnostics).
pub fn claims_of(jwt: &str) -> anyhow::Result<Value> {
    let body = jwt.split('.').nth(1).context("not a JWT")?;
    Ok(serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body)?)?)
}

/// The `.creds` format NATS clients read (async-nats, wash, wadm, the host launcher).
fn creds_file(jwt: &str, seed: &str) -> String {
    format!(
        "-----BEGIN NATS USER JWT-----\n{jwt}\n------END NATS USER JWT------\n\n\
         NKEY seed below: keep it secret, it authenticates this user.\n\n\
         -----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------\n"
    )
}

fn load_or_create_seed(path: &Path, new: fn() -> KeyPair) -> anyhow::Result<KeyPair> {
    if let Ok(seed) = fs::read_to_string(path) {
        return KeyPair::from_seed(seed.trim()).with_context(|| format!("{} is not an nkey seed", path.display()));
    }
    let key = new();
    write_private(path, key.seed()?.as_bytes())?;
    Ok(key)
}

/// Writes `bytes` readable by the owner only (seeds and tokens), replacing the file atomically.
fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// User and RSU names become subject tokens and file names.
fn check_name(name: &str) -> anyhow::Result<()> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        bail!("invalid name {name:?}: use 1–64 letters, digits, '-' or '_'");
    }
    Ok(())
}

fn now_s() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cits-nats-auth-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn verify(jwt: &str, issuer: &str) -> Value {
        let (body, sig) = jwt.rsplit_once('.').unwrap();
        let key = KeyPair::from_public_key(issuer).unwrap();
        key.verify(body.as_bytes(), &URL_SAFE_NO_PAD.decode(sig).unwrap()).expect("signature valid");
        claims_of(jwt).unwrap()
    }

    #[test]
    fn rsu_token_is_an_mqtt_only_bearer_for_its_own_two_subjects() {
        let dir = temp_dir("rsu");
        let auth = Authority::init(&dir).unwrap();
        let path = auth.add_rsu("rsu7").unwrap();
        let jwt = fs::read_to_string(path).unwrap();
        let claims = verify(&jwt, &auth.account.public_key());
        assert_eq!(claims["iss"], auth.account.public_key());
        assert_eq!(claims["nats"]["pub"]["allow"], json!(["cits.cpm.rsu7", "cits.cam.rsu7", "cits.vam.rsu7"]));
        assert_eq!(claims["nats"]["sub"]["allow"], json!(["cits.denm.rsu7", "$MQTT.sub.>"]));
        assert_eq!(claims["nats"]["bearer_token"], true);
        assert_eq!(claims["nats"]["allowed_connection_types"], json!(["MQTT"]));
        assert_eq!(auth.rsus().unwrap().len(), 1);
        assert!(auth.add_rsu("rsu.7").is_err(), "a dot would widen the subject");
        assert!(auth.add_rsu("rsu>").is_err());
    }

    #[test]
    fn removing_an_rsu_revokes_its_key_in_the_account_jwt() {
        let dir = temp_dir("revoke");
        let auth = Authority::init(&dir).unwrap();
        auth.add_rsu("rsu1").unwrap();
        let key = auth.rsus().unwrap()[0].public_key.clone();
        assert!(!auth.resolver_config().unwrap().is_empty());
        let operator_line = |conf: String| conf.lines().find(|l| l.starts_with("operator:")).unwrap().to_string();
        let before = operator_line(auth.resolver_config().unwrap());
        let removed = auth.remove_rsu("rsu1").unwrap();
        // The server reloads only a config whose trusted operator is unchanged.
        assert_eq!(operator_line(fs::read_to_string(auth.resolver_config_path()).unwrap()), before);
        assert_eq!(removed.public_key, key);
        let account = verify(&auth.account_jwt().unwrap(), &auth.operator.public_key());
        assert!(account["nats"]["revocations"][&key].as_u64().unwrap() >= removed.issued_at);
        assert!(auth.rsus().unwrap().is_empty());
        assert!(auth.rsu_token("rsu1").is_err());
        assert!(auth.remove_rsu("rsu1").is_err(), "removing twice says it is not registered");
        // The resolver config on disk carries the account JWT with the revocation.
        let conf = fs::read_to_string(auth.resolver_config_path()).unwrap();
        let account_jwt = conf.lines().find(|l| l.trim_start().starts_with(&auth.account.public_key())).unwrap();
        let jwt = account_jwt.split(": ").nth(1).unwrap().trim();
        assert!(claims_of(jwt).unwrap()["nats"]["revocations"].get(&key).is_some());
    }

    #[test]
    fn secrets_keys_are_made_once_and_kept() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = temp_dir("xkeys");
        let authority = Authority::init(&dir).unwrap();
        let path = authority.secrets_xkey("transit").unwrap();
        let seed = fs::read_to_string(&path).unwrap();
        assert!(nkeys::XKey::from_seed(&seed).is_ok());
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::read_to_string(authority.secrets_xkey("transit").unwrap()).unwrap(), seed);
        assert_ne!(fs::read_to_string(authority.secrets_xkey("encryption").unwrap()).unwrap(), seed);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keys_survive_reopening_and_accounts_chain_to_the_operator() {
        let dir = temp_dir("reopen");
        let first = Authority::init(&dir).unwrap();
        let creds = first.user_creds("wadm", &Permissions::all()).unwrap();
        let text = fs::read_to_string(&creds).unwrap();
        let second = Authority::init(&dir).unwrap();
        assert_eq!(first.account.public_key(), second.account.public_key());
        assert_eq!(fs::read_to_string(second.user_creds("wadm", &Permissions::all()).unwrap()).unwrap(), text);
        let jwt = text.lines().nth(1).unwrap();
        assert_eq!(verify(jwt, &second.account.public_key())["sub"].as_str().unwrap().chars().next(), Some('U'));
        let op = verify(&second.operator_jwt().unwrap(), &second.operator.public_key());
        assert_eq!(op["nats"]["system_account"], second.system.public_key());
        let acc = verify(&second.account_jwt().unwrap(), &second.operator.public_key());
        assert_eq!(acc["nats"]["limits"]["disk_storage"], -1, "JetStream enabled for the account");
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(fs::metadata(&creds).unwrap().permissions().mode() & 0o777, 0o600);
    }
}

//! The lattice's signature policy, as the decisions a policy service gives wasmCloud hosts.
//!
//! A host started with a policy topic asks before it starts a component or a provider (and before
//! it invokes a component; it caches each answer). The request is JSON (wasmCloud host 1.x,
//! policy version `v1`): `requestId`, `kind` (`startComponent`, `startProvider`,
//! `performInvocation`), `request` (the target, with its embedded `claims` if it has any:
//! `issuer`, `publicKey`, `expired` …) and `host`. The answer is `requestId`, `permitted` and a
//! `message` saying why not.
//!
//! Permitted is only what carries claims that have not expired, issued by a key on the
//! allow-list (the project's signing key). Everything else is refused: no claims (wasmCloud 1.x
//! would start an unsigned component), another issuer, expired claims, a request kind or version
//! this policy does not know, a request it cannot read. The host verified the claims' signature
//! when it read them; this decides whose signature counts.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// The request versions this policy understands.
const VERSION: &str = "v1";

/// Which issuers' components and providers may run.
#[derive(Debug, Clone)]
pub struct Policy {
    issuers: BTreeSet<String>,
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    #[serde(rename = "requestId")]
    pub request_id: String,
    pub permitted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Deserialize)]
struct Request {
    #[serde(rename = "requestId")]
    request_id: String,
    kind: String,
    version: String,
    request: serde_json::Value,
}

#[derive(Deserialize)]
struct Claims {
    issuer: String,
    #[serde(rename = "publicKey")]
    public_key: String,
    #[serde(default)]
    expired: bool,
}

impl Policy {
    /// A policy that permits the given issuers (public keys, `A…` account keys for wash-signed
    /// components and providers).
    pub fn new(issuers: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self { issuers: issuers.into_iter().map(Into::into).collect() }
    }

    /// The decision for one request as the host sent it.
    pub fn decide(&self, request: &[u8]) -> Decision {
        let request: Request = match serde_json::from_slice(request) {
            Ok(r) => r,
            Err(e) => {
                // No request id to answer with: the host times out and does not start anything.
                return refuse(String::new(), format!("unreadable policy request: {e}"));
            }
        };
        if request.version != VERSION {
            return refuse(request.request_id, format!("unknown policy request version {:?}", request.version));
        }
        let (what, subject) = match request.kind.as_str() {
            "startComponent" => ("component", &request.request),
            "startProvider" => ("provider", &request.request),
            "performInvocation" => ("component", &request.request["target"]),
            other => return refuse(request.request_id, format!("unknown policy request kind {other:?}")),
        };
        let name = ["componentId", "providerId", "imageRef"]
            .iter()
            .find_map(|k| subject[*k].as_str())
            .unwrap_or("(unnamed)")
            .to_string();
        let claims = match subject.get("claims") {
            None | Some(serde_json::Value::Null) => {
                return refuse(request.request_id, format!("{what} {name} is not signed (no claims)"));
            }
            Some(c) => match Claims::deserialize(c) {
                Ok(c) => c,
                Err(e) => return refuse(request.request_id, format!("{what} {name}: unreadable claims: {e}")),
            },
        };
        if claims.expired {
            return refuse(request.request_id, format!("{what} {name}: claims of {} expired", claims.public_key));
        }
        if !self.issuers.contains(&claims.issuer) {
            return refuse(
                request.request_id,
                format!("{what} {name} is signed by {}, which is not an allowed issuer", claims.issuer),
            );
        }
        Decision { request_id: request.request_id, permitted: true, message: None }
    }
}

fn refuse(request_id: String, message: String) -> Decision {
    Decision { request_id, permitted: false, message: Some(message) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const OURS: &str = "ACITSPROJECTSIGNINGKEY";

    fn request(kind: &str, body: serde_json::Value) -> Vec<u8> {
        json!({
            "requestId": "r1",
            "kind": kind,
            "version": "v1",
            "request": body,
            "host": {"publicKey": "NHOST", "lattice": "default", "labels": {}},
        })
        .to_string()
        .into_bytes()
    }

    fn claims(issuer: &str, expired: bool) -> serde_json::Value {
        json!({"publicKey": "MCOMPONENT", "issuer": issuer, "issuedAt": "1700000000", "expiresAt": null, "expired": expired})
    }

    fn component(claims: serde_json::Value) -> serde_json::Value {
        json!({"componentId": "cits-decoder", "imageRef": "file:///decoder_s.wasm", "maxInstances": 4, "annotations": {}, "claims": claims})
    }

    #[test]
    fn our_signed_components_providers_and_invocations_are_permitted() {
        let policy = Policy::new([OURS]);
        let start = policy.decide(&request("startComponent", component(claims(OURS, false))));
        assert_eq!(start, Decision { request_id: "r1".into(), permitted: true, message: None });
        let provider = json!({"providerId": "cits-messaging-nats", "imageRef": "file:///m.par", "annotations": {}, "claims": claims(OURS, false)});
        assert!(policy.decide(&request("startProvider", provider)).permitted);
        let call = json!({"interface": "wasmcloud:messaging/handler", "function": "handle-message", "target": component(claims(OURS, false))});
        assert!(policy.decide(&request("performInvocation", call)).permitted);
    }

    #[test]
    fn unsigned_foreign_expired_and_unknown_are_refused_with_a_reason() {
        let policy = Policy::new([OURS]);
        let cases = [
            (request("startComponent", component(serde_json::Value::Null)), "not signed"),
            (request("startComponent", component(claims("AOTHERISSUER", false))), "not an allowed issuer"),
            (request("startComponent", component(claims(OURS, true))), "expired"),
            (request("startComponent", component(json!({"issuer": 7}))), "unreadable claims"),
            (request("deleteEverything", component(claims(OURS, false))), "unknown policy request kind"),
            (request("startComponent", json!({"componentId": "x"})), "not signed"),
        ];
        for (req, why) in cases {
            let d = policy.decide(&req);
            assert!(!d.permitted, "{why}");
            assert_eq!(d.request_id, "r1");
            assert!(d.message.as_deref().unwrap_or_default().contains(why), "{why}: {:?}", d.message);
        }
        let mut v2: serde_json::Value =
            serde_json::from_slice(&request("startComponent", component(claims(OURS, false)))).unwrap();
        v2["version"] = json!("v2");
        assert!(!policy.decide(v2.to_string().as_bytes()).permitted, "an unknown version fails closed");
        let garbage = policy.decide(b"{not json");
        assert!(!garbage.permitted && garbage.message.unwrap().contains("unreadable"));
    }

    #[test]
    fn the_answer_is_the_json_the_host_reads() {
        let d = Policy::new([OURS]).decide(&request("startComponent", component(claims("AX", false))));
        let v: serde_json::Value = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(v["requestId"], "r1");
        assert_eq!(v["permitted"], false);
        assert!(v["message"].is_string());
        let ok = Policy::new([OURS]).decide(&request("startComponent", component(claims(OURS, false))));
        assert!(serde_json::to_value(&ok).unwrap().get("message").is_none());
    }
}

//! Why a stage could not process a message. Its own module so that every module may name it
//! (`subjects` too, which `stage` uses) without a circle.

/// Why a stage could not process one message.
///
/// Bad input ([`StageError::new`]) ends up on `cits.dlq.<stage>` and the stage carries on with
/// the next message. A service the stage depends on being unavailable
/// ([`StageError::unavailable`]: key-value store, blobstore, config) is not the message's fault:
/// the invocation fails so the messaging provider retries it, and only dead-letters it when the
/// retries fail too — no good message is thrown away on a transient outage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageError {
    pub reason: String,
    pub unavailable: bool,
}

impl StageError {
    pub fn new(reason: impl Into<String>) -> Self {
        Self { reason: reason.into(), unavailable: false }
    }

    pub fn unavailable(reason: impl Into<String>) -> Self {
        Self { reason: reason.into(), unavailable: true }
    }
}

/// What an invocation's error starts with when a service was unavailable: the contract between
/// the actors (`cits-actor`), which put it there, and our messaging provider, which then retries
/// without limit (the input is good) instead of counting towards the dead-letter limit.
pub const UNAVAILABLE: &str = "unavailable:";

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for StageError {}

//! NATS subjects of the pipeline (MQTT topic `a/b/c` arrives as subject `a.b.c`).

use crate::error::StageError;

/// RSUs publish UPER CPMs on MQTT `cits/cpm/<rsu>`.
pub const CPM_PREFIX: &str = "cits.cpm.";
/// Subscription of the decoder.
pub const CPM_WILDCARD: &str = "cits.cpm.*";

/// Vehicles' CAMs as an RSU hears or forwards them, on MQTT `cits/cam/<rsu>` (stored with the
/// CPMs, so the decoder's subscription `cits.cpm.*` delivers them too).
pub const CAM_PREFIX: &str = "cits.cam.";
/// Pedestrians' and cyclists' VAMs as an RSU hears or forwards them, on MQTT `cits/vam/<rsu>`
/// (stored with the CPMs as well).
pub const VAM_PREFIX: &str = "cits.vam.";

/// Every subject RSUs send on: their CPMs, and the CAMs and VAMs they hear.
pub const INPUT_WILDCARDS: [&str; 3] = ["cits.cpm.*", "cits.cam.*", "cits.vam.*"];

/// What arrives for the decoder: a CPM (the RSU's perception), a CAM (a vehicle's own report)
/// or a VAM (a vulnerable road user's own report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ingest {
    Cpm,
    Cam,
    Vam,
}

impl Ingest {
    pub const ALL: [Ingest; 3] = [Ingest::Cpm, Ingest::Cam, Ingest::Vam];

    /// The subject prefix it arrives under (`cits.cpm.` …, then the RSU).
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Cpm => CPM_PREFIX,
            Self::Cam => CAM_PREFIX,
            Self::Vam => VAM_PREFIX,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Cpm => "CPM",
            Self::Cam => "CAM",
            Self::Vam => "VAM",
        }
    }
}

/// What an input subject `cits.cpm.<rsu>`, `cits.cam.<rsu>` or `cits.vam.<rsu>` carries, and for
/// which RSU.
pub fn ingest_of_subject(subject: &str) -> Result<(Ingest, &str), StageError> {
    let ingest = Ingest::ALL.into_iter().find(|i| subject.starts_with(i.prefix())).unwrap_or(Ingest::Cpm);
    let rsu = rsu_after(subject, ingest.prefix());
    if ingest != Ingest::Cpm {
        return rsu.map(|rsu| (ingest, rsu));
    }
    rsu.map(|rsu| (Ingest::Cpm, rsu)).map_err(|_| {
        StageError::new(format!(
            "subject `{subject}` is not of the form {CPM_PREFIX}<rsu>, {CAM_PREFIX}<rsu> or {VAM_PREFIX}<rsu>"
        ))
    })
}

fn rsu_after<'a>(subject: &'a str, prefix: &str) -> Result<&'a str, StageError> {
    match subject.strip_prefix(prefix) {
        Some(rsu) if !rsu.is_empty() && !rsu.contains(['.', '*', '>']) => Ok(rsu),
        _ => Err(StageError::new(format!("subject `{subject}` is not of the form {prefix}<rsu>"))),
    }
}

/// Decoder output: `cits.decoded.<rsu>`.
pub fn decoded(rsu: &str) -> String {
    format!("cits.decoded.{rsu}")
}

/// Collector output: `cits.locations.<rsu>`.
pub fn locations(rsu: &str) -> String {
    format!("cits.locations.{rsu}")
}

/// Assembler output: `cits.trajectories.<rsu>`.
pub fn trajectories(rsu: &str) -> String {
    format!("cits.trajectories.{rsu}")
}

/// Map matcher output: `cits.matched.<rsu>`.
pub fn matched(rsu: &str) -> String {
    format!("cits.matched.{rsu}")
}

/// Predictor output: `cits.predicted.<rsu>`.
pub fn predicted(rsu: &str) -> String {
    format!("cits.predicted.{rsu}")
}

/// Collision detector output: `cits.risks.<rsu>`.
pub fn risks(rsu: &str) -> String {
    format!("cits.risks.{rsu}")
}

/// DENMs (UPER) for an RSU: `cits.denm.<rsu>`, MQTT topic `cits/denm/<rsu>`.
pub fn denm(rsu: &str) -> String {
    format!("cits.denm.{rsu}")
}

/// End of the pipeline, one [`crate::proto::FrameDone`] per frame: `cits.done.<rsu>`.
pub fn done(rsu: &str) -> String {
    format!("cits.done.{rsu}")
}

/// Where the DENM sender publishes a DENM: `cits.outbox.denm.<rsu>`. JetStream stores it once
/// (duplicates of a redelivered frame are dropped by message id) and only then republishes it on
/// [`denm`], so RSUs get each DENM once.
pub fn denm_outbox(rsu: &str) -> String {
    format!("cits.outbox.denm.{rsu}")
}

/// Where the DENM sender publishes a `FrameDone`, republished once on [`done`] (as [`denm_outbox`]).
pub fn done_outbox(rsu: &str) -> String {
    format!("cits.outbox.done.{rsu}")
}

/// Invocation subject of a [`crate::proto::MessageBatch`]: several queued messages delivered to a
/// component at once by our messaging provider (never published on NATS).
pub const BATCH: &str = "cits.batch";

/// Publish subject of a [`crate::proto::MessageBatch`]: everything one invocation publishes, with
/// message ids, handed to our messaging provider in one call (never published on NATS as such).
pub const PUBLISH: &str = "cits.publish";

/// Dead letters of a stage: `cits.dlq.<stage>`.
pub fn dead_letter(stage: &str) -> String {
    format!("cits.dlq.{stage}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rsu_is_the_last_token() {
        assert_eq!(ingest_of_subject("cits.cpm.rsu-7").unwrap().1, "rsu-7");
    }

    #[test]
    fn cams_and_cpms_arrive_on_their_own_subjects() {
        assert_eq!(ingest_of_subject("cits.cam.rsu-7").unwrap(), (Ingest::Cam, "rsu-7"));
        assert_eq!(ingest_of_subject("cits.vam.rsu-7").unwrap(), (Ingest::Vam, "rsu-7"));
        assert_eq!(ingest_of_subject("cits.cpm.rsu-7").unwrap(), (Ingest::Cpm, "rsu-7"));
        for s in ["cits.cam.", "cits.cam.a.b", "cits.vam.", "cits.vam.a.b", "cits.xam.r1", "cits.decoded.r1"] {
            assert!(ingest_of_subject(s).is_err(), "{s}");
        }
    }

    #[test]
    fn other_subjects_are_rejected() {
        for s in ["cits.cpm.", "cits.cpm.a.b", "cits.denm.rsu1", "cpm.rsu1", "cits.cpm.*"] {
            assert!(ingest_of_subject(s).is_err(), "{s}");
        }
    }
}

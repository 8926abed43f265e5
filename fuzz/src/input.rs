//! The inputs of the targets that are more than a message: which stage, what it reads back,
//! how it is delivered. Also compiled into `crates/cits-research/examples/fuzz_seeds.rs`, which writes the
//! seeds in these layouts (so this file uses only `std` and `cits`).

/// The RSU the targets' subjects name: the seeds' RSU, registered in the config.
pub const RSU: &str = "rsu1";

/// The age limit of the fuzz config: the recordings are years old, and the decoder compares
/// their reference time with the clock.
pub const MAX_AGE_MS: &str = "3155760000000";

/// The input subject of each stage, for RSU [`RSU`].
pub fn input_subject(stage: &str) -> String {
    use cits::subjects;
    match stage {
        cits::stages::decoder::STAGE => format!("{}{RSU}", subjects::CPM_PREFIX),
        cits::stages::collector::STAGE => subjects::decoded(RSU),
        cits::stages::assembler::STAGE => subjects::locations(RSU),
        cits::stages::map_matcher::STAGE => subjects::trajectories(RSU),
        cits::stages::predictor::STAGE => subjects::matched(RSU),
        cits::stages::collision_detector::STAGE => subjects::predicted(RSU),
        cits::stages::denm_sender::STAGE => subjects::risks(RSU),
        other => panic!("no stage {other}"),
    }
}

/// The stateful stages, in the order the `state` target's first byte selects them.
pub const STATEFUL: [&str; 3] =
    [cits::stages::assembler::STAGE, cits::stages::collision_detector::STAGE, cits::stages::denm_sender::STAGE];

/// Marks an absent value in [`StateInput`]'s layout.
pub const ABSENT: u16 = u16::MAX;

/// The `state` target's input: a stateful stage, the values its reads find, its input frame.
///
/// Layout: one byte selecting the stage (index into [`STATEFUL`], modulo its length), one byte
/// `n`, then `n` values each as a big-endian `u16` length ([`ABSENT`]: no value) and its bytes,
/// then the frame (the rest).
#[derive(Debug, PartialEq)]
pub struct StateInput<'a> {
    pub stage: &'static str,
    pub stored: Vec<Option<Vec<u8>>>,
    pub frame: &'a [u8],
}

impl<'a> StateInput<'a> {
    /// None when the bytes end before the values they announce.
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let (&select, rest) = data.split_first()?;
        let (&n, mut rest) = rest.split_first()?;
        let mut stored = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            let (len, tail) = rest.split_first_chunk::<2>()?;
            let len = u16::from_be_bytes(*len);
            if len == ABSENT {
                stored.push(None);
                rest = tail;
                continue;
            }
            let (value, tail) = tail.split_at_checked(usize::from(len))?;
            stored.push(Some(value.to_vec()));
            rest = tail;
        }
        Some(Self { stage: STATEFUL[usize::from(select) % STATEFUL.len()], stored, frame: rest })
    }

    /// The layout [`Self::parse`] reads; None when there are too many values or one is too long.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let select = STATEFUL.iter().position(|s| *s == self.stage)? as u8;
        let mut out = vec![select, u8::try_from(self.stored.len()).ok()?];
        for value in &self.stored {
            match value {
                None => out.extend_from_slice(&ABSENT.to_be_bytes()),
                Some(v) => {
                    out.extend_from_slice(&u16::try_from(v.len()).ok().filter(|l| *l != ABSENT)?.to_be_bytes());
                    out.extend_from_slice(v);
                }
            }
        }
        out.extend_from_slice(self.frame);
        Some(out)
    }
}

/// The `fused` target's input: the first byte's bit 0 says whether the rest is one CPM on
/// `cits.cpm.<RSU>` (0) or a `MessageBatch` on the batch subject (1), as the fused actor gets
/// them; bit 1, whether the same delivery comes a second time (a redelivery).
pub struct FusedInput<'a> {
    pub batch: bool,
    pub redelivered: bool,
    pub body: &'a [u8],
}

impl<'a> FusedInput<'a> {
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let (&flags, body) = data.split_first()?;
        Some(Self { batch: flags & 1 == 1, redelivered: flags & 2 == 2, body })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![u8::from(self.batch) | u8::from(self.redelivered) << 1];
        out.extend_from_slice(self.body);
        out
    }

    pub fn subject(&self) -> String {
        if self.batch {
            cits::subjects::BATCH.to_string()
        } else {
            input_subject(cits::stages::decoder::STAGE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_inputs_round_trip() {
        let input =
            StateInput { stage: STATEFUL[2], stored: vec![None, Some(vec![]), Some(vec![1, 2, 3])], frame: &[9, 9] };
        let bytes = input.to_bytes().unwrap();
        assert_eq!(StateInput::parse(&bytes).unwrap(), input);
        assert!(StateInput::parse(&bytes[..5]).is_none());
    }
}

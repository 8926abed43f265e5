//! Assembler actor: the Wasm shim around [`cits::assembler`], with state in wasi:keyvalue.

use cits::assembler::{assemble, key_of, AssemblerConfig};
use cits::proto::LocationsFrame;
use cits::stage::{decode_input, Traced as _};
use cits_actor::{kv, Inbound, Outbound, Stage, StageError};

/// Key-value bucket of the trajectories (a Redis key prefix with our provider).
const BUCKET: &str = "trajectories";

struct Assembler;

impl Stage for Assembler {
    const NAME: &'static str = cits::assembler::STAGE;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: LocationsFrame = decode_input(msg.body, "LocationsFrame")?;
        let cfg = AssemblerConfig::from_config(cits_actor::Config::load()?.entries())?;
        let keys: Vec<String> = frame.locations.iter().map(key_of).collect();
        let stored = kv::get_many(BUCKET, &keys)?;
        let (writes, out) = assemble(&frame, &keys, &stored, &cfg)?;
        kv::set_many(BUCKET, writes)?;
        Ok(vec![Outbound {
            subject: cits::subjects::trajectories(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

cits_actor::export_stage!(Assembler);

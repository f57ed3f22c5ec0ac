//! Machine-readable output: the final state as JSON (SPEC §2).
//!
//! Numbers are written as `f32`, whose shortest decimal form reads back as
//! the very same `f32`, so a JSON state can be compared bit for bit.

use std::io::{BufWriter, Write};

use carom::{BodyRef, World};
use serde::ser::{Serialize, Serializer};

/// The hash of the world's state as 16 lower-case hex digits.
pub fn hash_hex(world: &World) -> String {
    format!("{:016x}", world.state_hash())
}

/// The world's simulated time, as the `f32` every output reports.
pub fn time_of(world: &World) -> f32 {
    world.time() as f32
}

/// Writes the final state: steps, time, hash and every body, one line.
pub fn write_state(out: impl Write, world: &World) -> serde_json::Result<()> {
    let state = FinalState {
        steps: world.step_count(),
        time: time_of(world),
        hash: hash_hex(world),
        bodies: Bodies(world),
    };
    let mut out = BufWriter::new(out);
    serde_json::to_writer(&mut out, &state)?;
    out.write_all(b"\n")
        .and_then(|()| out.flush())
        .map_err(serde_json::Error::io)
}

#[derive(serde::Serialize)]
struct FinalState<'w> {
    steps: u64,
    time: f32,
    hash: String,
    bodies: Bodies<'w>,
}

/// Every body of a world, serialized one at a time rather than collected.
struct Bodies<'w>(&'w World);

impl Serialize for Bodies<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.bodies().map(BodyState::of))
    }
}

#[derive(serde::Serialize)]
struct BodyState<'w> {
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'w str>,
    kind: &'static str,
    position: [f32; 2],
    angle: f32,
    velocity: [f32; 2],
    angular_velocity: f32,
}

impl<'w> BodyState<'w> {
    fn of(body: BodyRef<'w>) -> BodyState<'w> {
        BodyState {
            index: body.index(),
            name: body.name(),
            kind: body.kind().as_str(),
            position: body.position().to_array(),
            angle: body.angle(),
            velocity: body.linear_velocity().to_array(),
            angular_velocity: body.angular_velocity(),
        }
    }
}

//! The human-readable summary of a run.

use std::fmt;
use std::time::Duration;

use carom::{BodyKind, World};

use crate::output::{hash_hex, time_of};

/// A dynamic body slower than this, in m/s and rad/s, counts as at rest.
const REST_SPEED: f32 = 0.01;

/// What a run did, in figures a person reads.
pub struct RunSummary {
    scene: String,
    bodies: usize,
    dynamic: usize,
    resting: usize,
    sleeping: usize,
    steps: u64,
    simulated: f32,
    wall: Duration,
    threads: usize,
    contacts: usize,
    max_penetration: f32,
    hash: String,
}

impl RunSummary {
    /// Summarises `world` after a run of `wall` time on `threads` threads.
    pub fn new(scene: &str, world: &World, wall: Duration, threads: usize) -> RunSummary {
        let (mut dynamic, mut resting) = (0, 0);
        for body in world.bodies().filter(|b| b.kind() == BodyKind::Dynamic) {
            dynamic += 1;
            let slow = body.linear_velocity().length() < REST_SPEED
                && body.angular_velocity().abs() < REST_SPEED;
            resting += usize::from(slow);
        }
        RunSummary {
            scene: scene.to_string(),
            bodies: world.body_count(),
            dynamic,
            resting,
            sleeping: world.stats().sleeping_bodies,
            steps: world.step_count(),
            simulated: time_of(world),
            wall,
            threads,
            contacts: world.stats().contact_points,
            max_penetration: world.max_penetration(),
            hash: hash_hex(world),
        }
    }

    fn ms_per_step(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            self.wall.as_secs_f64() * 1e3 / self.steps as f64
        }
    }
}

impl fmt::Display for RunSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} bodies ({} dynamic)",
            self.scene, self.bodies, self.dynamic
        )?;
        writeln!(
            f,
            "  {} steps, {:.3} s simulated in {:.3} s ({:.3} ms/step, {})",
            self.steps,
            self.simulated,
            self.wall.as_secs_f64(),
            self.ms_per_step(),
            plural(self.threads, "thread")
        )?;
        writeln!(
            f,
            "  last step: {} contact points, deepest penetration {:.5} m",
            self.contacts, self.max_penetration
        )?;
        writeln!(
            f,
            "  at rest (under {REST_SPEED} m/s and {REST_SPEED} rad/s): {} of {} dynamic bodies, {} asleep",
            self.resting, self.dynamic, self.sleeping
        )?;
        write!(f, "  hash {}", self.hash)
    }
}

/// `1 thread`, `2 threads`: a count and its noun.
pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

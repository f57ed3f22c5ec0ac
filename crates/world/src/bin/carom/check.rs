//! `carom check`: load and validate a scene, and say what it holds.

use std::io::Write;
use std::path::PathBuf;

use carom::scene::Scene;
use clap::Args;

use crate::failure::Failure;

#[derive(Args)]
pub struct CheckArgs {
    /// The scene file (RON).
    #[arg(value_name = "SCENE")]
    scene: PathBuf,
}

pub fn check(args: &CheckArgs) -> Result<(), Failure> {
    let scene = Scene::load(&args.scene)?;
    let s = scene.summary();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: {} bodies (static {}, kinematic {}, dynamic {}); \
         shapes: circle {}, segment {}, stadium {}, sector {}",
        args.scene.display(),
        s.bodies(),
        s.static_bodies,
        s.kinematic_bodies,
        s.dynamic_bodies,
        s.circles,
        s.segments,
        s.stadiums,
        s.sectors
    )
    .and_then(|()| {
        writeln!(
            out,
            "settings: gravity ({}, {}), dt {} s, {} substeps, {} steps",
            scene.gravity.x, scene.gravity.y, scene.dt, scene.substeps, scene.steps
        )
    })
    .map_err(|e| Failure::writing("the summary", e))
}

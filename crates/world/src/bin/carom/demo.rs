//! `carom` with no command: a small built-in scene, run and summarised.

use std::io::Write;

use carom::scene::Scene;

use crate::failure::Failure;
use crate::report::RunSummary;
use crate::run::advance;
use crate::setup::Setup;

/// The demo scene, built into the binary so that it runs from anywhere.
const DEMO_SCENE: &str = include_str!("../../../../../scenes/demo.ron");

pub fn demo() -> Result<(), Failure> {
    let scene = Scene::from_str(DEMO_SCENE, "demo.ron")?;
    let mut setup = Setup::new(String::from("demo.ron"), &scene, None, None)?;
    let (world, steps) = (&mut setup.world, setup.steps);
    let wall = setup.pool.install(|| advance(world, steps, None))?;
    let threads = setup.pool.current_num_threads();
    let summary = RunSummary::new(&setup.name, &setup.world, wall, threads);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "carom demo: balls, capsules and small domes fall into a box with a fixed dome.\n\
         (`carom --help` lists the commands: run, bench, check, render.)\n\n{summary}"
    )
    .map_err(|e| Failure::writing("the summary", e))
}

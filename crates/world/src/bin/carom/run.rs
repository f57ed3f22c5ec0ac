//! `carom run`: step a scene, then summarise it or print its final state.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use carom::World;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::failure::Failure;
use crate::output::write_state;
use crate::report::RunSummary;
use crate::setup::{Setup, StepArgs};
use crate::trace::Trace;

/// Runs with at least this many body-steps show a progress bar (on a
/// terminal): about a second of work and up.
const LONG_RUN: u64 = 2_000_000;

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    common: StepArgs,
    /// Print the final state as one JSON object instead of a summary.
    #[arg(long)]
    json: bool,
    /// Write the state of every non-static body to this CSV file.
    #[arg(long, value_name = "FILE.csv")]
    trace: Option<PathBuf>,
    /// Trace every K-th step (step 0 and the final step are always traced).
    #[arg(long, value_name = "K", default_value_t = 1, requires = "trace",
          value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
}

pub fn run(args: &RunArgs) -> Result<(), Failure> {
    let mut setup = Setup::from_args(&args.common)?;
    let steps = setup.steps;
    let mut trace = match &args.trace {
        Some(path) => Some(Trace::create(path, args.every)?),
        None => None,
    };
    let world = &mut setup.world;
    let wall = setup
        .pool
        .install(|| advance(world, steps, trace.as_mut()))?;
    if let Some(trace) = trace {
        trace.finish()?;
    }
    if args.json {
        write_state(std::io::stdout().lock(), &setup.world)
            .map_err(|e| Failure::writing_json("the state", e))
    } else {
        let threads = setup.pool.current_num_threads();
        let summary = RunSummary::new(&setup.name, &setup.world, wall, threads);
        writeln!(std::io::stdout().lock(), "{summary}")
            .map_err(|e| Failure::writing("the summary", e))
    }
}

/// Steps `world` `steps` times, tracing as asked; returns the wall time.
pub fn advance(
    world: &mut World,
    steps: u64,
    mut trace: Option<&mut Trace>,
) -> Result<Duration, Failure> {
    let last = world.step_count().saturating_add(steps);
    let progress = progress_bar(steps, world.body_count());
    let started = Instant::now();
    if let Some(trace) = trace.as_deref_mut() {
        trace.record_if_due(world, last)?;
    }
    for _ in 0..steps {
        world.step();
        if let Some(trace) = trace.as_deref_mut() {
            trace.record_if_due(world, last)?;
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok(started.elapsed())
}

/// A bar on standard error for long runs on a terminal; hidden otherwise,
/// so that pipes and logs stay clean.
fn progress_bar(steps: u64, bodies: usize) -> ProgressBar {
    let work = steps.saturating_mul(bodies as u64);
    if work < LONG_RUN || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {eta} left")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(steps).with_style(style)
}

//! `carom bench`: time every step of a scene.

use std::io::Write;
use std::time::{Duration, Instant};

use carom::{StepTimings, World};
use clap::Args;
use serde::Serialize;

use crate::failure::Failure;
use crate::output::hash_hex;
use crate::report::plural;
use crate::setup::{Setup, StepArgs};

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    common: StepArgs,
    /// Print the figures as one JSON object.
    #[arg(long)]
    json: bool,
}

/// The figures `bench` reports (SPEC §2), plus the scene's name.
#[derive(Serialize)]
struct BenchReport {
    scene: String,
    steps: u64,
    bodies: usize,
    threads: usize,
    total_s: f64,
    ms_per_step: StepTimes,
    contacts_max: usize,
    max_penetration: f32,
    hash: String,
    /// Whether bodies were allowed to sleep (extension).
    sleep: bool,
    /// Bodies asleep after the last step (extension).
    sleeping_at_end: usize,
    /// Seconds spent in each phase over all steps (an extension of SPEC §2).
    phases_s: Phases,
}

/// Total seconds per phase of the step.
#[derive(Serialize, Default)]
struct Phases {
    broadphase: f64,
    narrowphase: f64,
    solver: f64,
    finish: f64,
}

impl Phases {
    fn add(&mut self, t: &StepTimings) {
        self.broadphase += t.broadphase;
        self.narrowphase += t.narrowphase;
        self.solver += t.solver;
        self.finish += t.finish;
    }

    fn rounded(self) -> Phases {
        Phases {
            broadphase: round_to(self.broadphase, 1e6),
            narrowphase: round_to(self.narrowphase, 1e6),
            solver: round_to(self.solver, 1e6),
            finish: round_to(self.finish, 1e6),
        }
    }
}

/// Milliseconds per step.
#[derive(Serialize)]
struct StepTimes {
    mean: f64,
    median: f64,
    p95: f64,
    max: f64,
}

pub fn bench(args: &BenchArgs) -> Result<(), Failure> {
    let mut setup = Setup::from_args(&args.common)?;
    let steps = setup.steps;
    let world = &mut setup.world;
    let (times, contacts_max, phases) = setup.pool.install(|| time_steps(world, steps));
    let report = BenchReport {
        scene: setup.name.clone(),
        steps,
        bodies: setup.world.body_count(),
        threads: setup.pool.current_num_threads(),
        total_s: round_to(times.iter().sum::<Duration>().as_secs_f64(), 1e6),
        ms_per_step: StepTimes::of(times),
        contacts_max,
        max_penetration: setup.world.max_penetration(),
        hash: hash_hex(&setup.world),
        sleep: setup.world.settings().sleep,
        sleeping_at_end: setup.world.stats().sleeping_bodies,
        phases_s: phases.rounded(),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &report)
            .map_err(|e| Failure::writing_json("the report", e))?;
        writeln!(out).map_err(|e| Failure::writing("the report", e))
    } else {
        writeln!(out, "{}", report.line()).map_err(|e| Failure::writing("the report", e))
    }
}

/// Steps `world` `steps` times, timing each step alone; also returns the
/// most contact points any step had and the time spent in each phase.
fn time_steps(world: &mut World, steps: u64) -> (Vec<Duration>, usize, Phases) {
    // Reserve for ordinary runs only: an absurd `--steps` must not make
    // the first allocation fail.
    let mut times = Vec::with_capacity(steps.min(1 << 20) as usize);
    let mut contacts_max = 0;
    let mut phases = Phases::default();
    for _ in 0..steps {
        let started = Instant::now();
        world.step();
        times.push(started.elapsed());
        let stats = world.stats();
        contacts_max = contacts_max.max(stats.contact_points);
        phases.add(&stats.timings);
    }
    (times, contacts_max, phases)
}

impl StepTimes {
    fn of(mut times: Vec<Duration>) -> StepTimes {
        if times.is_empty() {
            return StepTimes {
                mean: 0.0,
                median: 0.0,
                p95: 0.0,
                max: 0.0,
            };
        }
        times.sort_unstable();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let n = times.len();
        let middle = n / 2;
        let median = if n % 2 == 1 {
            ms(times[middle])
        } else {
            0.5 * (ms(times[middle - 1]) + ms(times[middle]))
        };
        // Nearest rank: the smallest time at or above 95 % of the steps.
        let p95_rank = (n * 95).div_ceil(100).clamp(1, n);
        StepTimes {
            mean: round_to(times.iter().map(|&d| ms(d)).sum::<f64>() / n as f64, 1e4),
            median: round_to(median, 1e4),
            p95: round_to(ms(times[p95_rank - 1]), 1e4),
            max: round_to(ms(times[n - 1]), 1e4),
        }
    }
}

impl BenchReport {
    /// The report on one line, for people.
    fn line(&self) -> String {
        let ms = &self.ms_per_step;
        format!(
            "{}: {} bodies, {} steps, {} | total {:.3} s | ms/step mean {:.3} \
             median {:.3} p95 {:.3} max {:.3} | contacts max {} | max penetration {:.5} m | sleep {} ({} sleeping at end) \
             | hash {} | phases s: broadphase {:.3} narrowphase {:.3} solver {:.3} finish {:.3}",
            self.scene,
            self.bodies,
            self.steps,
            plural(self.threads, "thread"),
            self.total_s,
            ms.mean,
            ms.median,
            ms.p95,
            ms.max,
            self.contacts_max,
            self.max_penetration,
            if self.sleep { "on" } else { "off" },
            self.sleeping_at_end,
            self.hash,
            self.phases_s.broadphase,
            self.phases_s.narrowphase,
            self.phases_s.solver,
            self.phases_s.finish
        )
    }
}

/// Rounds to `1 / per_unit`: timer figures carry no more meaning than that.
fn round_to(value: f64, per_unit: f64) -> f64 {
    (value * per_unit).round() / per_unit
}

//! What every stepping command does first: load the scene, build its world,
//! and make the thread pool the steps run in.

use std::path::PathBuf;

use carom::scene::Scene;
use carom::World;
use clap::Args;
use rayon::ThreadPool;

use crate::failure::Failure;

/// The arguments of every command that steps a scene.
#[derive(Args)]
pub struct StepArgs {
    /// The scene file (RON).
    #[arg(value_name = "SCENE")]
    pub scene: PathBuf,
    /// Steps to run [default: the scene's `steps`].
    #[arg(long, value_name = "N")]
    pub steps: Option<u64>,
    /// Worker threads [default: all cores]; every count gives identical results.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Keep every body awake (bodies at rest sleep by default).
    #[arg(long)]
    pub no_sleep: bool,
}

/// A scene ready to step.
pub struct Setup {
    /// The file name, as given on the command line.
    pub name: String,
    /// Steps to run: the command line's count, else the scene's.
    pub steps: u64,
    /// The scene's world, before the first step.
    pub world: World,
    /// The pool every step runs in.
    pub pool: ThreadPool,
}

impl Setup {
    /// Loads the scene the arguments name and prepares its world and pool.
    pub fn from_args(args: &StepArgs) -> Result<Setup, Failure> {
        let scene = Scene::load(&args.scene)?;
        let name = args.scene.display().to_string();
        let mut setup = Setup::new(name, &scene, args.steps, args.threads)?;
        if args.no_sleep {
            let settings = carom::WorldSettings {
                sleep: false,
                ..*setup.world.settings()
            };
            setup
                .world
                .set_settings(settings)
                .map_err(|e| Failure::Runtime(e.to_string()))?;
        }
        Ok(setup)
    }

    /// Builds the world of an already loaded scene, to be run for `steps`
    /// steps (the scene's count when `None`) on `threads` threads (all cores
    /// when `None`).
    pub fn new(
        name: String,
        scene: &Scene,
        steps: Option<u64>,
        threads: Option<u32>,
    ) -> Result<Setup, Failure> {
        Ok(Setup {
            name,
            steps: steps.unwrap_or(scene.steps),
            world: scene.build_world()?,
            pool: thread_pool(threads)?,
        })
    }
}

fn thread_pool(threads: Option<u32>) -> Result<ThreadPool, Failure> {
    let threads = match threads {
        Some(n) => n as usize,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Failure::Runtime(format!("cannot start {threads} threads: {e}")))
}

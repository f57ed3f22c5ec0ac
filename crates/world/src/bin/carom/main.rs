//! `carom`: run, time and check scene files from the command line.
//!
//! Exit status: 0 success, 1 runtime failure, 2 bad input (arguments or scene).

mod bench;
mod check;
mod demo;
mod failure;
mod output;
mod render;
mod report;
mod run;
mod setup;
mod trace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use failure::Failure;

/// A fast, deterministic 2D physics step engine.
///
/// With no command, carom runs a small built-in demo and prints what happened.
#[derive(Parser)]
#[command(name = "carom", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Step a scene and print a summary, or the final state as JSON.
    Run(run::RunArgs),
    /// Step a scene timing every step; print the figures.
    Bench(bench::BenchArgs),
    /// Load and validate a scene; print its bodies and shapes by kind.
    Check(check::CheckArgs),
    /// Draw a scene: `.svg` or `.png` at the last step, `.gif` animated.
    Render(render::RenderArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        None => demo::demo(),
        Some(Command::Run(args)) => run::run(args),
        Some(Command::Bench(args)) => bench::bench(args),
        Some(Command::Check(args)) => check::check(args),
        Some(Command::Render(args)) => render::render(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::OutputClosed) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {failure}");
            failure.exit_code()
        }
    }
}

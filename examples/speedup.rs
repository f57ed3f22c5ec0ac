//! How much faster a scene steps on several threads than on one, measured
//! the way the README's two-thread figures are.
//!
//! Each round runs the scene once on one thread and once on `--threads`
//! threads, each run in a fresh process (this program calls itself with
//! `--measure T`), and sums the time of the step calls alone, as
//! `carom bench` does. The runs alternate, so that a burst of other work on
//! a shared machine slows both alike, and nothing else runs beside them:
//! this process only waits for the run's one line of output. It then
//! prints the medians, the ratio of the medians and the spread of the
//! rounds' own ratios, and checks that every run ended in the same state,
//! as carom promises for any thread count (exit status 1 if not).
//!
//! ```text
//! cargo run --release --example speedup -- [SCENE] [--threads 2] [--rounds 9] [--steps N] [--sleep]
//! ```
//!
//! The scene defaults to `scenes/hopper.ron`; sleeping is off unless
//! `--sleep` is given, so that every step does the work of every body.

#[path = "common/rounds.rs"]
mod rounds;

use std::process::Command;
use std::time::Instant;

use carom::scene::Scene;
use rounds::{median, spread};

struct Options {
    scene: String,
    threads: usize,
    rounds: usize,
    steps: Option<u64>,
    sleep: bool,
    /// Run the scene once on this many threads and print
    /// `seconds state_hash`.
    measure: Option<usize>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        scene: String::from("scenes/hopper.ron"),
        threads: 2,
        rounds: 9,
        steps: None,
        sleep: false,
        measure: None,
    };
    let mut args = std::env::args().skip(1);
    let count = |flag: &str, value: Option<String>| -> Result<usize, String> {
        let value = value.ok_or(format!("{flag} needs a value"))?;
        match value.parse() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "{flag}: expected a count of at least 1, got {value:?}"
            )),
        }
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--threads" => options.threads = count("--threads", args.next())?,
            "--rounds" => options.rounds = count("--rounds", args.next())?,
            "--steps" => options.steps = Some(count("--steps", args.next())? as u64),
            "--measure" => options.measure = Some(count("--measure", args.next())?),
            "--sleep" => options.sleep = true,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            scene => options.scene = String::from(scene),
        }
    }
    Ok(options)
}

/// Steps the scene on `threads` threads; returns the seconds spent in the
/// step calls and the final state's hash.
fn measure(options: &Options, threads: usize) -> Result<(f64, u64), String> {
    let scene = Scene::load(&options.scene).map_err(|e| e.to_string())?;
    let mut world = scene.build_world().map_err(|e| e.to_string())?;
    let settings = carom::WorldSettings {
        sleep: options.sleep,
        ..*world.settings()
    };
    world.set_settings(settings).map_err(|e| e.to_string())?;
    let steps = options.steps.unwrap_or(scene.steps);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let seconds = pool.install(|| {
        let mut seconds = 0.0;
        for _ in 0..steps {
            let start = Instant::now();
            world.step();
            seconds += start.elapsed().as_secs_f64();
        }
        seconds
    });
    Ok((seconds, world.state_hash()))
}

/// One run in a fresh copy of this program.
fn measure_in_child(options: &Options, threads: usize) -> Result<(f64, u64), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut command = Command::new(exe);
    command.args([&options.scene, "--measure", &threads.to_string()]);
    if let Some(steps) = options.steps {
        command.args(["--steps", &steps.to_string()]);
    }
    if options.sleep {
        command.arg("--sleep");
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run the {threads}-thread measurement: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut fields = text.split_whitespace();
    let seconds = fields.next().map(str::parse::<f64>);
    let hash = fields.next().map(|h| u64::from_str_radix(h, 16));
    match (seconds, hash) {
        (Some(Ok(seconds)), Some(Ok(hash))) if output.status.success() => Ok((seconds, hash)),
        _ => Err(format!(
            "the {threads}-thread run failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .trim()
                .trim_start_matches("error: ")
        )),
    }
}

fn fail(message: &str, status: i32) -> ! {
    eprintln!("error: {message}");
    std::process::exit(status);
}

fn main() {
    let options = parse_options().unwrap_or_else(|message| fail(&message, 2));
    if let Some(threads) = options.measure {
        let (seconds, hash) = measure(&options, threads).unwrap_or_else(|e| fail(&e, 1));
        println!("{seconds} {hash:016x}");
        return;
    }
    let mut one = Vec::new();
    let mut many = Vec::new();
    let mut hashes = Vec::new();
    for _ in 0..options.rounds {
        for (threads, times) in [(1, &mut one), (options.threads, &mut many)] {
            let (seconds, hash) =
                measure_in_child(&options, threads).unwrap_or_else(|e| fail(&e, 1));
            times.push(seconds);
            hashes.push((threads, hash));
        }
    }
    let sleep = if options.sleep { "on" } else { "off" };
    let rounds = match options.rounds {
        1 => String::from("1 round"),
        n => format!("{n} alternating rounds"),
    };
    println!("{}: sleeping {sleep}, {rounds}", options.scene);
    for (threads, times) in [(1, &one), (options.threads, &many)] {
        let (low, high) = spread(times);
        let median = median(times);
        let unit = if threads == 1 { "thread: " } else { "threads:" };
        println!("{threads:>3} {unit} median {median:.3} s ({low:.3}–{high:.3})");
    }
    let ratios: Vec<f64> = one.iter().zip(&many).map(|(a, b)| a / b).collect();
    let (low, high) = spread(&ratios);
    println!(
        "speed-up {:.3}× (ratio of the medians); the rounds' own: median {:.3}×, {low:.3}–{high:.3}×",
        median(&one) / median(&many),
        median(&ratios),
    );
    let first = hashes[0].1;
    match hashes.iter().find(|(_, hash)| *hash != first) {
        None => println!("every run ended in the same state ({first:016x})"),
        Some((threads, hash)) => fail(
            &format!("a {threads}-thread run ended in {hash:016x}, another in {first:016x}"),
            1,
        ),
    }
}

//! How step time grows with the number of bodies.
//!
//! Steps circle piles of growing size (`Scene::circle_pile`: the same depth
//! at every size, so the work per body is constant), times each step after
//! a warm-up, and writes `docs/scaling.csv` and the plot `docs/scaling.svg`
//! of median time per step against body count, with the peak resident
//! memory per body of each size. Each size runs in a fresh process (this
//! program calls itself with `--size N`), so that one world's heap does not
//! shape the next one's timings or memory. Sleeping is off, so every step
//! does the full work of the pile.
//!
//! Each size is measured `--rounds` times, the sizes taking turns, and the
//! median of the rounds is kept (with the highest peak memory): on a shared
//! machine a burst of other work can slow one short measurement by half.
//!
//! ```text
//! cargo run --release --example scaling -- [--max 100000] [--threads 1] [--rounds 5] [--out docs/scaling]
//! ```

#[path = "common/settling_pile.rs"]
mod settling_pile;

use std::time::Instant;

use plotters::prelude::*;
use settling_pile::{median_of_steps, settling_pile};

/// Body counts measured, up to `--max`.
const SIZES: [u32; 6] = [1_000, 3_000, 10_000, 30_000, 60_000, 100_000];

struct Options {
    max: u32,
    threads: usize,
    rounds: usize,
    out: String,
    /// Measure this one size and print `ms_per_step peak_bytes`.
    size: Option<u32>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        max: 100_000,
        threads: 1,
        rounds: 5,
        out: String::from("docs/scaling"),
        size: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--max" => options.max = value.parse().map_err(|e| format!("--max: {e}"))?,
            "--threads" => {
                options.threads = value.parse().map_err(|e| format!("--threads: {e}"))?
            }
            "--rounds" => {
                options.rounds = value.parse().map_err(|e| format!("--rounds: {e}"))?;
                if options.rounds == 0 {
                    return Err(String::from("--rounds must be at least 1"));
                }
            }
            "--out" => options.out = value,
            "--size" => options.size = Some(value.parse().map_err(|e| format!("--size: {e}"))?),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

/// Median milliseconds per step of a pile of `count` circles.
fn median_step_ms(count: u32) -> f64 {
    median_of_steps(&mut settling_pile(count), |world| {
        let start = Instant::now();
        world.step();
        start.elapsed().as_secs_f64() * 1e3
    })
}

/// Peak resident memory of this process, bytes (Linux; None elsewhere).
fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn plot(points: &[(u32, f64)], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (720, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let max_n = points.iter().map(|p| p.0).max().unwrap_or(1) as f64;
    let max_ms = points.iter().map(|p| p.1).fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "carom: median step time of a settling circle pile",
            ("sans-serif", 18),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..max_n * 1.05, 0.0..max_ms * 1.15)?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .x_labels(6)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .x_desc("bodies")
        .y_desc("ms per step")
        .draw()?;
    let series = points.iter().map(|&(n, ms)| (n as f64, ms));
    chart.draw_series(LineSeries::new(series.clone(), BLUE.stroke_width(2)))?;
    chart.draw_series(series.map(|p| Circle::new(p, 4, BLUE.filled())))?;
    root.present()?;
    Ok(())
}

/// Runs one size in a fresh copy of this program: (ms per step, peak bytes).
fn measure_in_child(count: u32, threads: usize) -> Result<(f64, u64), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let output = std::process::Command::new(exe)
        .args([
            "--size",
            &count.to_string(),
            "--threads",
            &threads.to_string(),
        ])
        .output()
        .map_err(|e| format!("cannot run the {count}-body measurement: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut fields = text.split_whitespace();
    match (fields.next().map(str::parse), fields.next().map(str::parse)) {
        (Some(Ok(ms)), Some(Ok(bytes))) if output.status.success() => Ok((ms, bytes)),
        _ => Err(format!(
            "the {count}-body measurement failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}

fn main() {
    let options = match parse_options() {
        Ok(o) => o,
        Err(message) => {
            eprintln!("error: {message}");
            std::process::exit(2);
        }
    };
    if let Some(count) = options.size {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(options.threads)
            .build()
            .expect("thread pool");
        let ms = pool.install(|| median_step_ms(count));
        println!("{ms} {}", peak_memory_bytes().unwrap_or(0));
        return;
    }
    let sizes: Vec<u32> = SIZES.into_iter().filter(|&n| n <= options.max).collect();
    let mut rounds = vec![Vec::new(); sizes.len()];
    for _ in 0..options.rounds {
        for (&count, measured) in sizes.iter().zip(&mut rounds) {
            let round = measure_in_child(count, options.threads).unwrap_or_else(|e| fail(&e));
            measured.push(round);
        }
    }
    let mut points = Vec::new();
    let mut csv =
        String::from("bodies,threads,median_ms_per_step,us_per_body_step,peak_bytes_per_body\n");
    for (&count, measured) in sizes.iter().zip(&mut rounds) {
        measured.sort_by(|a, b| a.0.total_cmp(&b.0));
        let ms = measured[measured.len() / 2].0;
        let peak = measured.iter().map(|m| m.1).max().unwrap_or(0);
        let per_body_us = 1e3 * ms / count as f64;
        let per_body_bytes = peak as f64 / count as f64;
        println!(
            "{count:>7} bodies: {ms:8.3} ms/step, {per_body_us:.3} µs per body-step, \
             peak memory {:.1} MB ({per_body_bytes:.0} bytes per body)",
            peak as f64 / 1e6
        );
        csv.push_str(&format!(
            "{count},{},{ms:.4},{per_body_us:.5},{per_body_bytes:.0}\n",
            options.threads
        ));
        points.push((count, ms));
    }
    let csv_path = format!("{}.csv", options.out);
    let svg_path = format!("{}.svg", options.out);
    if let Err(e) = std::fs::write(&csv_path, csv) {
        fail(&format!("cannot write {csv_path}: {e}"));
    }
    if let Err(e) = plot(&points, &svg_path) {
        fail(&format!("cannot draw {svg_path}: {e}"));
    }
    println!("wrote {csv_path} and {svg_path}");
}

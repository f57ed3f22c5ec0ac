//! Whether the solver's speed depends on how deep the caller's stack is.
//!
//! A program embedding carom calls `World::step` from wherever its own
//! code happens to be, so the step's stack frames can start at any offset.
//! This steps one circle pile at many stack depths, each a few dozen bytes
//! deeper than the last, and prints the median solver time per step at
//! each, with the spread between the fastest and slowest depth. carom's
//! SIMD routines realign their frames (see
//! `carom::narrowphase::lanes::align_stack_frame`), so the spread should be
//! machine noise only; a routine that spilled 256-bit values to unaligned
//! slots shows as a few depths up to 40 % slower than the rest.
//!
//! ```text
//! cargo run --release --example stack_depth -- [--bodies 10000] [--depths 48]
//! ```

#[path = "common/settling_pile.rs"]
mod settling_pile;

use settling_pile::{median_of_steps, settling_pile};

fn main() {
    let (bodies, depths) = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("stack_depth: {message}");
            std::process::exit(2);
        }
    };
    // One thread, so that every step runs on this thread's stack.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let mut times = Vec::new();
    println!("depth  stack offset mod 4096  solver ms/step");
    for depth in 0..depths {
        let (offset, ms) = pool.install(|| at_depth(depth, &mut || solver_ms(bodies)));
        println!("{depth:5}  {offset:21}  {ms:14.3}");
        times.push(ms);
    }
    times.sort_by(f64::total_cmp);
    let (fastest, slowest) = (times[0], times[times.len() - 1]);
    println!(
        "fastest {fastest:.3} ms, median {:.3} ms, slowest {slowest:.3} ms: slowest/fastest {:.2}",
        times[times.len() / 2],
        slowest / fastest
    );
}

fn parse_options() -> Result<(u32, usize), String> {
    let (mut bodies, mut depths) = (10_000, 48);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--bodies" => bodies = value.parse().map_err(|e| format!("--bodies: {e}"))?,
            "--depths" => depths = value.parse().map_err(|e| format!("--depths: {e}"))?,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if depths == 0 {
        return Err(String::from("--depths must be at least 1"));
    }
    Ok((bodies, depths))
}

/// Runs `f` under `levels` extra stack frames; returns where the stack
/// ended up (modulo a page) and what `f` returned.
#[inline(never)]
fn at_depth(levels: usize, f: &mut dyn FnMut() -> f64) -> (usize, f64) {
    if levels == 0 {
        let here = 0u8;
        let offset = std::hint::black_box(&here) as *const u8 as usize % 4096;
        return (offset, f());
    }
    // A local the compiler must keep makes each level's frame larger.
    let pad = std::hint::black_box([0u8; 16]);
    let result = at_depth(levels - 1, f);
    std::hint::black_box(&pad);
    result
}

/// Median solver milliseconds per step of a settling pile of `bodies`
/// circles, built afresh.
fn solver_ms(bodies: u32) -> f64 {
    median_of_steps(&mut settling_pile(bodies), |world| {
        world.step();
        world.stats().timings.solver * 1e3
    })
}

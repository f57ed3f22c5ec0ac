//! How much faster several threads can be than one on this machine, for
//! work that shares perfectly: the ceiling over the `speedup` example's
//! figures.
//!
//! The work is a chain of dependent floating-point operations that touches
//! no memory, cut into equal blocks of about 4 µs. Threads claim blocks
//! from an atomic counter, as carom's solver claims the blocks of a stage,
//! and at the end of each stage spin until all its blocks are done. Two
//! cadences are timed, on one thread and on `--threads`, alternating:
//!
//! - one stage of every block: what the cores give with nothing to wait
//!   for;
//! - stages of 12 blocks, about the size and the number of the hopper's
//!   solver stages (some 50 a step of 1.7 ms on two threads).
//!
//! Then it times data handed from one core to another, which work that
//! shares well on paper pays for: a buffer the size of the hopper's kept
//! pairs (304 KB) is written and then read, by one thread, and by two
//! taking turns, one writing and the other reading. A phase that reads
//! what another core's phase wrote pays the difference.
//!
//! Last it spins on one thread and then on `--threads`, each reading the
//! clock, and counts the pauses longer than 20 µs: moments in which the
//! machine ran something else on that core. A thread that pauses inside a
//! block holds up the others at the stage's end.
//!
//! ```text
//! cargo run --release --example ceiling -- [--threads 2] [--rounds 7]
//! ```

#[path = "common/rounds.rs"]
mod rounds;

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rounds::{median, spread};

/// Blocks in one run: some 0.7 s of work on one thread.
const BLOCKS: usize = 180_000;
/// Blocks per stage at the solver's cadence.
const STAGE_BLOCKS: usize = 12;
/// The time one block should take on one thread.
const BLOCK_TIME: Duration = Duration::from_micros(4);
/// A clock reading this long after the one before is a pause.
const PAUSE: Duration = Duration::from_micros(20);
/// How long each thread spins while pauses are counted.
const PAUSE_WATCH: Duration = Duration::from_secs(2);
/// Words of the buffer handed between threads: 304 KB, about the hopper's
/// kept pairs (some 38,000 of 8 bytes).
const HANDOFF_WORDS: usize = 38_912;
/// Hand-offs timed per round.
const HANDOFFS: usize = 2_000;

struct Options {
    threads: usize,
    rounds: usize,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        threads: 2,
        rounds: 7,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let slot = match flag.as_str() {
            "--threads" => &mut options.threads,
            "--rounds" => &mut options.rounds,
            _ => return Err(format!("unknown argument {flag}")),
        };
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        *slot = value.parse().ok().filter(|&n| n > 0).ok_or(format!(
            "{flag}: expected a count of at least 1, got {value:?}"
        ))?;
    }
    Ok(options)
}

/// A block's work: `steps` dependent multiply-adds, which no compiler can
/// spread over lanes and no core can overlap.
fn chain(steps: u32) -> f64 {
    let mut x = black_box(1.0f64);
    for _ in 0..steps {
        x = x * 1.000_000_1 + 0.5;
    }
    black_box(x)
}

/// How many steps of [`chain`] take [`BLOCK_TIME`] here.
fn steps_per_block() -> u32 {
    let trial = 100_000;
    let start = Instant::now();
    for _ in 0..10 {
        chain(trial);
    }
    let per_step = start.elapsed().as_secs_f64() / (10 * trial) as f64;
    (BLOCK_TIME.as_secs_f64() / per_step).round().max(1.0) as u32
}

/// Runs [`BLOCKS`] blocks in stages of `stage_blocks` on `threads`
/// threads; returns the seconds taken.
fn run(threads: usize, stage_blocks: usize, steps: u32) -> f64 {
    let stages = BLOCKS / stage_blocks;
    let claimed: Vec<AtomicUsize> = (0..stages).map(|_| AtomicUsize::new(0)).collect();
    let finished: Vec<AtomicUsize> = (0..stages).map(|_| AtomicUsize::new(0)).collect();
    let work = || {
        for (claimed, finished) in claimed.iter().zip(&finished) {
            while claimed.fetch_add(1, Ordering::Relaxed) < stage_blocks {
                chain(steps);
                finished.fetch_add(1, Ordering::Release);
            }
            while finished.load(Ordering::Acquire) < stage_blocks {
                std::hint::spin_loop();
            }
        }
    };
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        work();
    });
    start.elapsed().as_secs_f64()
}

/// Writes every word of `buffer` (with `value`); returns the time taken.
fn write_all(buffer: &[AtomicU64], value: u64) -> Duration {
    let start = Instant::now();
    for word in buffer {
        word.store(value, Ordering::Relaxed);
    }
    start.elapsed()
}

/// Reads every word of `buffer`; returns the time taken.
fn read_all(buffer: &[AtomicU64]) -> Duration {
    let start = Instant::now();
    let sum = buffer.iter().fold(0u64, |sum, word| {
        sum.wrapping_add(word.load(Ordering::Relaxed))
    });
    black_box(sum);
    start.elapsed()
}

/// [`HANDOFFS`] times, a buffer written and then read: by this thread
/// alone (`across` false) or, taking turns, written by another thread and
/// read by this one. Returns the average write and read, in µs.
fn handoff(across: bool) -> (f64, f64) {
    let buffer: Vec<AtomicU64> = (0..HANDOFF_WORDS).map(|_| AtomicU64::new(0)).collect();
    let (mut written, mut read) = (Duration::ZERO, Duration::ZERO);
    if across {
        // Turn `2k + 1`: the writer has written round `k`; `2k + 2`: the
        // reader has read it.
        let turn = AtomicUsize::new(0);
        let wait_for = |wanted: usize| {
            while turn.load(Ordering::Acquire) != wanted {
                std::hint::spin_loop();
            }
        };
        std::thread::scope(|scope| {
            let writer = scope.spawn(|| {
                let mut written = Duration::ZERO;
                for k in 0..HANDOFFS {
                    wait_for(2 * k);
                    written += write_all(&buffer, k as u64);
                    turn.store(2 * k + 1, Ordering::Release);
                }
                written
            });
            for k in 0..HANDOFFS {
                wait_for(2 * k + 1);
                read += read_all(&buffer);
                turn.store(2 * k + 2, Ordering::Release);
            }
            written = writer.join().expect("the writer panicked");
        });
    } else {
        for k in 0..HANDOFFS {
            written += write_all(&buffer, k as u64);
            read += read_all(&buffer);
        }
    }
    let average = |total: Duration| total.as_secs_f64() * 1e6 / HANDOFFS as f64;
    (average(written), average(read))
}

/// Spins on `threads` threads for [`PAUSE_WATCH`]; returns, per thread,
/// how many pauses it saw and their total length.
fn pauses(threads: usize) -> Vec<(usize, Duration)> {
    let watch = || {
        let start = Instant::now();
        let (mut count, mut total) = (0, Duration::ZERO);
        let mut last = start;
        while last - start < PAUSE_WATCH {
            let now = Instant::now();
            let gap = now - last;
            if gap > PAUSE {
                count += 1;
                total += gap;
            }
            last = now;
        }
        (count, total)
    };
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(watch)).collect();
        let mine = watch();
        let theirs = others
            .into_iter()
            .map(|h| h.join().expect("a watch panicked"));
        std::iter::once(mine).chain(theirs).collect()
    })
}

fn main() {
    let options = parse_options().unwrap_or_else(|message| {
        eprintln!("error: {message}");
        std::process::exit(2);
    });
    let steps = steps_per_block();
    let threads = options.threads;
    println!(
        "{threads} threads against one, {} alternating rounds, {BLOCKS} blocks of {} µs",
        options.rounds,
        BLOCK_TIME.as_micros()
    );
    for (name, stage_blocks) in [
        (String::from("one stage"), BLOCKS),
        (format!("stages of {STAGE_BLOCKS} blocks"), STAGE_BLOCKS),
    ] {
        let (mut one, mut many) = (Vec::new(), Vec::new());
        for _ in 0..options.rounds {
            one.push(run(1, stage_blocks, steps));
            many.push(run(threads, stage_blocks, steps));
        }
        let ratios: Vec<f64> = one.iter().zip(&many).map(|(a, b)| a / b).collect();
        let (low, high) = spread(&ratios);
        println!(
            "{name:>20}: 1 thread {:.3} s, {threads} threads {:.3} s: {:.2}× (the rounds' own {low:.2}–{high:.2}×)",
            median(&one),
            median(&many),
            median(&one) / median(&many),
        );
    }
    let (mut alone, mut across) = (Vec::new(), Vec::new());
    for _ in 0..options.rounds {
        alone.push(handoff(false));
        across.push(handoff(true));
    }
    let medians = |rounds: &[(f64, f64)]| {
        let (writes, reads): (Vec<f64>, Vec<f64>) = rounds.iter().copied().unzip();
        (median(&writes), median(&reads))
    };
    let ((write_alone, read_alone), (write_across, read_across)) =
        (medians(&alone), medians(&across));
    println!(
        "{:>20}: written then read by one thread {write_alone:.1} + {read_alone:.1} µs, \
         by two taking turns {write_across:.1} + {read_across:.1} µs",
        format!("{} KB", HANDOFF_WORDS * 8 / 1024),
    );
    println!(
        "pauses over {} µs while spinning for {} s:",
        PAUSE.as_micros(),
        PAUSE_WATCH.as_secs()
    );
    for count in [1, threads] {
        let seen: Vec<String> = pauses(count)
            .iter()
            .map(|(n, total)| format!("{n} ({:.1} ms)", total.as_secs_f64() * 1e3))
            .collect();
        println!("{count:>20} thread(s): {}", seen.join(", "));
    }
}

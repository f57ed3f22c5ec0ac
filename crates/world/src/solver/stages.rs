//! The substep loop on several threads with one fork-join per step.
//!
//! A step runs some 150 short stages one after the other (per substep:
//! integrate velocities; warm start, solve and relax each graph colour;
//! integrate positions; then restitution per colour). Run as one parallel
//! loop each, the helper thread would fall asleep between stages and have
//! to be woken by a system call every time, which costs more than most
//! stages. Instead the calling thread *leads*: it publishes the stages one
//! by one, and helpers, started once per step, claim blocks of the current
//! stage from an atomic counter and spin while they wait for the next.
//!
//! Nothing waits for a helper: the leader claims blocks too and finishes
//! every stage by itself if no helper ever starts (a pool busy with other
//! work), and a helper that starts late joins whatever stage is current.
//! Within a stage, blocks touch disjoint data (bodies are split by index;
//! the batches of one colour share no dynamic body) and each is computed the
//! same way whoever claims it, so the result is the same bits for any
//! number of threads.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

use super::contact::{Restitution, Solve, WarmStart};
use super::integrate::{integrate_position, integrate_velocity, BodyMotion, MotionLimits};
use super::wide::{WideConstraint, WidePass};
use super::{run_batches, Batches, ConstraintSet, Isa, Solver, StatesPtr};
use crate::threading::Threading;

/// Bodies per block of an integration stage.
const BODY_BLOCK: usize = 512;
/// SIMD batches (of eight constraints) per block of a constraint stage.
const BATCH_BLOCK: usize = 32;

/// Below this many SIMD batches a step's stages run on the calling thread
/// alone: each stage is then a few microseconds of work, less than keeping
/// two cores in step costs. (The result is the same on any number of
/// threads.)
const SMALL_STEP_BATCHES: usize = 2048;
/// Spins between yields to the operating system while waiting, so that a
/// thread whose partner was descheduled does not hold its core for long.
const SPINS_BEFORE_YIELD: u32 = 1 << 10;
/// [`Executor::current`] once every stage is done.
const FINISHED: usize = usize::MAX;

/// The passes of one step.
pub(crate) struct StepPasses<'a> {
    pub substeps: u32,
    pub h: f32,
    pub limits: &'a MotionLimits,
    pub solve: &'a Solve,
    pub relax: &'a Solve,
    pub restitution: &'a Restitution,
}

/// A constraint pass, named so that a stage can say which it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    WarmStart,
    Solve,
    Relax,
    Restitution,
}

/// What one stage does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Work {
    IntegrateVelocities,
    IntegratePositions,
    /// A pass over one colour's batches, one- and two-point together
    /// (`ones` one-point batches first, then the two-point ones).
    Constraints {
        pass: Pass,
        color: usize,
        ones: usize,
    },
}

/// One stage: its work, over `items` bodies or batches, split into blocks
/// of `block_len` items.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stage {
    work: Work,
    items: usize,
    block_len: usize,
    blocks: usize,
}

impl Stage {
    fn new(work: Work, items: usize, block_len: usize) -> Stage {
        Stage {
            work,
            items,
            block_len,
            blocks: items.div_ceil(block_len),
        }
    }

    /// The items of block `block`.
    fn range(&self, block: usize) -> (usize, usize) {
        let begin = block * self.block_len;
        (begin, (begin + self.block_len).min(self.items))
    }
}

/// Progress of one stage: blocks handed out and blocks finished. Each on
/// its own cache line, so that threads working on one stage do not slow
/// down each other's reads of the next.
#[derive(Debug, Default)]
#[repr(align(64))]
pub(crate) struct StageSync {
    /// Blocks handed out from the front (low 32 bits) and from the back
    /// (high 32 bits).
    claimed: AtomicU64,
    done: AtomicU32,
}

/// Which end of a stage a thread takes its blocks from. The leader works
/// from the front and helpers from the back, so each thread keeps to
/// roughly the same bodies from stage to stage (and their data stays in its
/// cache) while the split still adapts to how fast each thread runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Front,
    Back,
}

impl StageSync {
    /// The next unclaimed block from `end`, if any is left of `blocks`.
    fn claim(&self, end: End, blocks: usize) -> Option<usize> {
        let mut seen = self.claimed.load(Ordering::Relaxed);
        loop {
            let (front, back) = (seen & u64::from(u32::MAX), seen >> 32);
            if (front + back) as usize >= blocks {
                return None;
            }
            let (next, block) = match end {
                End::Front => (seen + 1, front as usize),
                End::Back => (seen + (1 << 32), blocks - 1 - back as usize),
            };
            match self.claimed.compare_exchange_weak(
                seen,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(block),
                Err(actual) => seen = actual,
            }
        }
    }
}

impl Solver {
    /// Runs the substeps and restitution, the calling thread leading and,
    /// for a large step in a pool, the pool's other threads helping.
    pub(super) fn run_substeps(
        &mut self,
        passes: &StepPasses,
        threading: Threading,
        batches: &mut Batches,
    ) {
        let count = batches.ones.len() + batches.twos.len();
        let threads = if threading == Threading::Calling || count < SMALL_STEP_BATCHES {
            1
        } else {
            rayon::current_num_threads()
        };
        self.plan_stages(passes.substeps, threads);
        self.stage_syncs.clear();
        self.stage_syncs
            .resize_with(self.stages.len(), StageSync::default);
        let exec = Executor {
            stages: &self.stages,
            syncs: &self.stage_syncs,
            current: AtomicUsize::new(0),
            states: StatesPtr(self.states.as_mut_ptr()),
            motions: &self.motions,
            dynamic: &self.dynamic,
            ones: SetPtr::of(&self.ones, batches.ones),
            twos: SetPtr::of(&self.twos, batches.twos),
            isa: self.isa,
            passes,
        };
        if threads == 1 {
            // Without helpers, so without a rayon scope either.
            exec.lead();
            return;
        }
        rayon::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| exec.help());
            }
            exec.lead();
        });
    }

    /// The stages of one step, in order, empty colours left out. On one
    /// thread every stage is a single block; the overflow set always is, as
    /// its constraints may share bodies and must run in order.
    fn plan_stages(&mut self, substeps: u32, threads: usize) {
        let split = |items: usize, block_len: usize| if threads > 1 { block_len } else { items };
        let bodies = self.states.len();
        let colors = self.ones.color_batches.len();
        let parallel_colors = self.coloring.color_count();
        let mut stages = std::mem::take(&mut self.stages);
        stages.clear();
        let constraints = |stages: &mut Vec<Stage>, pass: Pass| {
            for color in 0..colors {
                let ones = self.ones.color_len(color);
                let items = ones + self.twos.color_len(color);
                if items == 0 {
                    continue;
                }
                let block_len = if color < parallel_colors {
                    split(items, BATCH_BLOCK)
                } else {
                    items
                };
                let work = Work::Constraints { pass, color, ones };
                stages.push(Stage::new(work, items, block_len));
            }
        };
        let body_stage = |work| Stage::new(work, bodies, split(bodies, BODY_BLOCK));
        for _ in 0..substeps {
            stages.push(body_stage(Work::IntegrateVelocities));
            constraints(&mut stages, Pass::WarmStart);
            constraints(&mut stages, Pass::Solve);
            stages.push(body_stage(Work::IntegratePositions));
            constraints(&mut stages, Pass::Relax);
        }
        constraints(&mut stages, Pass::Restitution);
        self.stages = stages;
    }
}

impl<const N: usize> ConstraintSet<N> {
    fn color_len(&self, color: usize) -> usize {
        let (first, end) = self.color_batches[color];
        (end - first) as usize
    }
}

/// One constraint set's batches, reachable from every thread.
struct SetPtr<'a, const N: usize> {
    batches: *mut WideConstraint<N>,
    /// Per colour: its range of `batches`.
    color_batches: &'a [(u32, u32)],
}

impl<'a, const N: usize> SetPtr<'a, N> {
    fn of(set: &'a ConstraintSet<N>, batches: &'a mut [WideConstraint<N>]) -> SetPtr<'a, N> {
        SetPtr {
            batches: batches.as_mut_ptr(),
            color_batches: &set.color_batches,
        }
    }

    /// Batches `begin..end` of colour `color`.
    ///
    /// # Safety
    /// No other live reference may cover any of these batches.
    #[allow(clippy::mut_from_ref)]
    unsafe fn batches(&self, color: usize, begin: usize, end: usize) -> &mut [WideConstraint<N>] {
        let first = self.color_batches[color].0 as usize;
        // SAFETY: the range lies inside the colour's batches, inside the
        // buffer; the caller guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.batches.add(first + begin), end - begin) }
    }
}

/// The stages of one step and what they work on, shared by every thread.
struct Executor<'a> {
    stages: &'a [Stage],
    syncs: &'a [StageSync],
    /// The stage being worked on, or [`FINISHED`].
    current: AtomicUsize,
    states: StatesPtr,
    motions: &'a [BodyMotion],
    dynamic: &'a [bool],
    ones: SetPtr<'a, 1>,
    twos: SetPtr<'a, 2>,
    isa: Isa,
    passes: &'a StepPasses<'a>,
}

// SAFETY: the raw pointers are dereferenced only inside `run_block`, and
// the blocks of a stage are disjoint and handed out once each; a stage is
// published only after every block of the previous one is done.
unsafe impl Sync for Executor<'_> {}

impl Executor<'_> {
    /// Publishes each stage in turn, works on it, and waits until all its
    /// blocks are done (a helper may still be finishing one).
    fn lead(&self) {
        for (index, stage) in self.stages.iter().enumerate() {
            self.current.store(index, Ordering::Release);
            self.work_on(index, End::Front);
            let sync = &self.syncs[index];
            let mut spins = 0;
            while (sync.done.load(Ordering::Acquire) as usize) < stage.blocks {
                pause(&mut spins);
            }
        }
        self.current.store(FINISHED, Ordering::Release);
    }

    /// Works on whatever stage is current until the leader finishes.
    fn help(&self) {
        let mut seen = self.current.load(Ordering::Acquire);
        while seen != FINISHED {
            self.work_on(seen, End::Back);
            let mut spins = 0;
            loop {
                let now = self.current.load(Ordering::Acquire);
                if now != seen {
                    seen = now;
                    break;
                }
                pause(&mut spins);
            }
        }
    }

    /// Claims and runs blocks of stage `index` from `end` until none are
    /// left.
    fn work_on(&self, index: usize, end: End) {
        let (stage, sync) = (&self.stages[index], &self.syncs[index]);
        while let Some(block) = sync.claim(end, stage.blocks) {
            // SAFETY: each block of a stage is claimed exactly once, and the
            // blocks of a stage touch disjoint data (see the type's docs).
            unsafe { self.run_block(stage, block) };
            sync.done.fetch_add(1, Ordering::Release);
        }
    }

    /// Runs block `block` of `stage`.
    ///
    /// # Safety
    /// No other thread may be running the same block, nor any block of
    /// another stage.
    unsafe fn run_block(&self, stage: &Stage, block: usize) {
        let p = self.passes;
        let (begin, end) = stage.range(block);
        match stage.work {
            Work::IntegrateVelocities => match self.isa {
                Isa::Portable => self.bodies(begin, end, |s, m| integrate_velocity(s, m, p.h)),
                // SAFETY: `Isa::Avx2` is only chosen when the processor has
                // AVX2, and body blocks are disjoint (see above).
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe {
                    super::avx::integrate_velocities(self.states, self.motions, begin..end, p.h);
                },
            },
            Work::IntegratePositions => match self.isa {
                Isa::Portable => {
                    self.bodies(begin, end, |s, _| integrate_position(s, p.limits, p.h));
                }
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe {
                    let limits = p.limits;
                    super::avx::integrate_positions(
                        self.states,
                        self.motions,
                        begin..end,
                        limits,
                        p.h,
                    );
                },
            },
            Work::Constraints { pass, color, ones } => match pass {
                Pass::WarmStart => self.constraints(&WarmStart, color, ones, begin, end),
                Pass::Solve => self.constraints(p.solve, color, ones, begin, end),
                Pass::Relax => self.constraints(p.relax, color, ones, begin, end),
                Pass::Restitution => {
                    self.constraints(p.restitution, color, ones, begin, end);
                }
            },
        }
    }

    /// Runs `f` on the moving bodies among `begin..end`.
    unsafe fn bodies(
        &self,
        begin: usize,
        end: usize,
        f: impl Fn(&mut super::integrate::BodyState, &BodyMotion),
    ) {
        for i in begin..end {
            let motion = &self.motions[i];
            if motion.moves {
                // SAFETY: body blocks are disjoint (see `run_block`).
                f(unsafe { &mut *self.states.at(i as u32) }, motion);
            }
        }
    }

    /// Runs `pass` on batches `begin..end` of colour `color`, counting its
    /// `ones` one-point batches first and its two-point batches after.
    unsafe fn constraints<P: WidePass>(
        &self,
        pass: &P,
        color: usize,
        ones: usize,
        begin: usize,
        end: usize,
    ) {
        // SAFETY: the range belongs to this block alone (see `run_block`).
        unsafe {
            let batches = self.ones.batches(color, begin.min(ones), end.min(ones));
            run_batches(batches, pass, self.states, self.dynamic, self.isa);
            let twos = (begin.max(ones) - ones, end.max(ones) - ones);
            let batches = self.twos.batches(color, twos.0, twos.1);
            run_batches(batches, pass, self.states, self.dynamic, self.isa);
        }
    }
}

/// One round of waiting: a spin, and now and then a yield.
#[inline]
fn pause(spins: &mut u32) {
    *spins += 1;
    if *spins % SPINS_BEFORE_YIELD == 0 {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_and_back_claims_hand_out_every_block_once() {
        for blocks in [0, 1, 2, 7, 64] {
            let sync = StageSync::default();
            let mut seen = vec![0; blocks];
            let mut turn = 0;
            loop {
                let end = if turn % 3 == 0 { End::Back } else { End::Front };
                turn += 1;
                match sync.claim(end, blocks) {
                    Some(block) => seen[block] += 1,
                    None => break,
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{blocks} blocks: {seen:?}");
            assert_eq!(sync.claim(End::Front, blocks), None);
            assert_eq!(sync.claim(End::Back, blocks), None);
        }
    }

    #[test]
    fn the_front_counts_up_and_the_back_counts_down() {
        let sync = StageSync::default();
        assert_eq!(sync.claim(End::Front, 5), Some(0));
        assert_eq!(sync.claim(End::Back, 5), Some(4));
        assert_eq!(sync.claim(End::Back, 5), Some(3));
        assert_eq!(sync.claim(End::Front, 5), Some(1));
    }
}

//! The solver's step on several threads with one fork-join per step.
//!
//! A step runs some 60 short stages one after the other: prepare the
//! constraint batches; per substep, integrate velocities, warm start, solve
//! and relax the regions of each region colour (see [`crate::graph`]), and
//! integrate positions; then restitution per region colour; and last, copy
//! the impulses back into the contacts and the motion into the bodies
//! (advancing their sleep timers as well). Run as one parallel loop each,
//! the helper thread would fall asleep between stages and have to be woken
//! by a system call every time, which costs more than most stages. Instead
//! the calling thread *leads*: it publishes the stages one by one, and
//! helpers, started once per step, claim blocks of the current stage from
//! an atomic counter and spin while they wait for the next.
//!
//! Each thread owns about half of every stage's blocks: the leader the
//! lower regions or bodies, the helper the upper (see
//! [`Solver::plan_homes`]), so that a region is solved on the same core
//! pass after pass. A stage ends with one thread finishing the last block
//! while the other has none left: with a handful of regions per region
//! colour, that is often most of a region's time. So a thread out of its
//! own blocks goes on to its own blocks of the next few stages that touch
//! no body of a block before them still to finish (known by the bodies'
//! spans; see [`Executor::run_ahead`]), then takes what is left of the
//! other's; and a helper moves on to the next stage as soon as every block
//! of its stage is done, without waiting for the leader to publish it.
//!
//! Nothing waits for a helper: the leader claims blocks too and finishes
//! every stage by itself if no helper ever starts (a pool busy with other
//! work), and a helper that starts late joins whatever stage is current.
//! Within a stage, blocks touch disjoint data (bodies and batches are split
//! by index; the regions of one region colour share no dynamic body) and
//! each is computed the same way whoever claims it, so the result is the
//! same bits for any number of threads.
//!
//! This module plans the stages and hands out their blocks; what each
//! kind of block does is in `block`.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::batch::{BatchRun, BatchSlots, ConstraintSet, SetSlots};
use super::contact::{Restitution, Solve};
use super::integrate::{BodyMotion, MotionLimits};
use super::order::SlotOrder;
use super::start::{Kept, StartPose};
use super::wide::{WideBounce, WideConstraint};
use super::{BodyMass, Isa, Solver, StatesPtr, StepOutputs, BODY_BLOCK};
use crate::body::Body;
use crate::contacts::{Contact, ContactEnds};
use crate::graph::{self, BodySpan};
use crate::sleep::{Readiness, SleepTimer};
use crate::threading::{pause, BlockClaims, End, OnDrop, Threading};

mod block;

/// Below this many SIMD batches, and [`SHARED_STAGE_BODIES`] bodies, a
/// step's stages run on the calling thread alone: each stage is then a few
/// microseconds of work, less than keeping two cores in step costs. (The
/// result is the same on any number of threads.) Measured on the hopper's
/// first 30 steps, 10,000 circles falling onto the floor with some 1,240
/// batches once they land: at 2,048 batches (and no rule on bodies) those
/// steps ran their stages on one thread; at 1,024, with regions from
/// 8,192 contacts (see `super::MIN_REGIONED_CONTACTS`), the two-thread
/// solver took 13.3 ms over them instead of 21.2 (medians of 5 runs).
const SMALL_STEP_BATCHES: usize = 1024;

/// From this many bodies a step's stages are shared however few its
/// constraints: integrating and storing the bodies is then enough work on
/// its own (the hopper's first steps, 10,000 circles falling with no
/// contact, took about 0.15 ms a step in the solver instead of 0.30).
const SHARED_STAGE_BODIES: usize = 8192;

/// Below this [`graph::Coloring::region_speedup`] a step's stages run on the
/// calling thread as well: its regions meet so many others that sharing
/// them would mostly move bodies' states from core to core. Bodies created
/// in no order in space do this (a region then holds bodies from all over
/// the world). Measured on a settled pile of 10,000 circles listed in
/// random order, stepped on two threads: its 12 regions took 12 region
/// colours (a speed-up of 1 by this count), and the solver took 1.4 times
/// as long as on one thread; listed in random order only within runs of
/// 3,000 bodies, they took 8 (a speed-up of 1.5), and two threads still
/// solved 1.17 times as fast as one. Below it (counted as if on two
/// threads), the solver also orders the bodies for the next steps so that
/// the regions part (see `super::order`).
pub(super) const MIN_REGION_SPEEDUP: f32 = 1.25;

/// Regions below which a step's tangle is left as it is: a few regions
/// that meet cost little, and ordering the bodies may not part them.
const MIN_REORDERED_REGIONS: usize = 4;

/// How many stages past its own a thread out of blocks may look for
/// blocks clear of those still running (see [`Executor::run_ahead`]).
const STAGES_AHEAD: usize = 4;
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
    /// Prepare every batch from the contacts, region by region, each
    /// thread's own regions by place (see [`Solver::plan_homes`]).
    Prepare,
    IntegrateVelocities,
    IntegratePositions,
    /// A pass over the regions of one region colour, each region's groups
    /// in turn, one- and two-point batches of a group together.
    Constraints {
        pass: Pass,
        region_color: usize,
    },
    /// Copy every batch's impulses into its contacts, region by region as
    /// they are prepared.
    StoreImpulses,
    /// Copy the motion of the step into the bodies.
    StoreBodies,
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
        // A stage of no items has no blocks, whatever its block length.
        let block_len = block_len.max(1);
        Stage {
            work,
            items,
            block_len,
            blocks: items.div_ceil(block_len),
        }
    }

    /// Whether the stage is cut into several blocks, as it is for threads
    /// to share.
    #[cfg(test)]
    pub(super) fn is_split(&self) -> bool {
        self.blocks > 1
    }

    /// The items of block `block`.
    fn range(&self, block: usize) -> (usize, usize) {
        let begin = block * self.block_len;
        (begin, (begin + self.block_len).min(self.items))
    }
}

impl Solver {
    /// Prepares the batches into `slots`, runs the substeps and restitution
    /// on them, and stores the impulses into `contacts` and the motion into
    /// `bodies`: the calling thread leading and, for a large step in a pool,
    /// the pool's other threads helping.
    pub(super) fn run_stages(
        &mut self,
        passes: &StepPasses,
        threading: Threading,
        slots: BatchSlots,
        written: StepOutputs,
    ) {
        let StepOutputs {
            contacts,
            ends,
            bodies,
            rest,
        } = written;
        assert!(
            slots.ones.batches.len() == self.ones.batch_count()
                && slots.twos.batches.len() == self.twos.batch_count(),
            "one slot per batch"
        );
        assert_eq!(
            bodies.len() + 1,
            self.states.len(),
            "one state per body and the null body"
        );
        let count = slots.ones.batches.len() + slots.twos.batches.len();
        let large = count >= SMALL_STEP_BATCHES || bodies.len() >= SHARED_STAGE_BODIES;
        let threads = match threading {
            Threading::Pool if large => rayon::current_num_threads(),
            _ => 1,
        };
        // A step of one region (or none) has nothing to untangle: its
        // constraint stages are one block each, and its per-body stages
        // share well.
        let regions = self.coloring.region_ends.len();
        let tangled = regions > 1 && self.coloring.region_speedup(threads) < MIN_REGION_SPEEDUP;
        let threads = if tangled { 1 } else { threads };
        // Whether the next step keeps the bodies in an order of its own
        // (see `super::order`). The order changes the bits, so this is
        // decided from the regions alone, as if on two threads whatever the
        // threads at hand.
        self.order_age = self.order_age.saturating_add(1);
        let tangled_on_two = self.coloring.region_speedup(2) < MIN_REGION_SPEEDUP;
        let order_due = self.order.is_none() || self.order_age >= super::ORDER_MIN_AGE;
        self.reorder = regions >= MIN_REORDERED_REGIONS && tangled_on_two && order_due;
        self.plan_stages(passes.substeps, threads);
        let front_regions = self.plan_homes();
        let fronts = &self.home_fronts;
        let syncs = self.stages.iter().map(|stage| match stage.work {
            Work::Constraints { region_color, .. } => BlockClaims::with_front(fronts[region_color]),
            Work::Prepare | Work::StoreImpulses if stage.block_len == 1 => {
                BlockClaims::with_front(front_regions)
            }
            _ => BlockClaims::default(),
        });
        self.stage_syncs.clear();
        self.stage_syncs.extend(syncs);
        assert_eq!(self.start_poses.len(), bodies.len(), "one start per body");
        let rest = rest.map(|(timer, readiness)| {
            assert_eq!(readiness.len(), bodies.len(), "one readiness slot per body");
            (timer, readiness.as_mut_ptr())
        });
        let (kept, start_poses) = self.start_poses.slots();
        let exec = Executor {
            stages: &self.stages,
            syncs: &self.stage_syncs,
            current: AtomicUsize::new(0),
            states: StatesPtr(self.states.as_mut_ptr()),
            state_count: self.states.len(),
            masses: self.masses.as_mut_ptr(),
            mass_count: self.masses.len(),
            motions: &self.motions,
            dynamic: &self.dynamic,
            contacts: contacts.as_mut_ptr(),
            contact_count: contacts.len(),
            ends,
            slot_of: self.order.as_ref().map(SlotOrder::slot_of),
            body_of: self.order.as_ref().map(SlotOrder::body_of),
            bodies: bodies.as_mut_ptr(),
            kept,
            start_poses,
            rest,
            ones: SetPtr::of(&self.ones, slots.ones),
            twos: SetPtr::of(&self.twos, slots.twos),
            region_ends: &self.coloring.region_ends,
            region_color_ends: &self.coloring.region_color_ends,
            home_regions: &self.home_regions,
            region_spans: &self.coloring.region_spans,
            kinematic_blocks: &self.kinematic_blocks,
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

    /// The stages of one step, in order. On one thread every stage is a
    /// single block; on several, a constraint stage's block is one region,
    /// except for the regions that overflowed the region colours, which may
    /// share bodies and must run in order.
    fn plan_stages(&mut self, substeps: u32, threads: usize) {
        let split = |items: usize, block_len: usize| if threads > 1 { block_len } else { items };
        let bodies = self.states.len();
        let regions = self.coloring.region_ends.len();
        let region_color_ends = &self.coloring.region_color_ends;
        let mut stages = std::mem::take(&mut self.stages);
        stages.clear();
        let constraints = |stages: &mut Vec<Stage>, pass: Pass| {
            for region_color in 0..region_color_ends.len() {
                let regions = graph::run(region_color_ends, region_color).len();
                if regions == 0 {
                    continue;
                }
                let overflow = region_color + 1 == region_color_ends.len();
                let block_len = if overflow { regions } else { split(regions, 1) };
                let work = Work::Constraints { pass, region_color };
                stages.push(Stage::new(work, regions, block_len));
            }
        };
        let body_stage = |work| Stage::new(work, bodies, split(bodies, BODY_BLOCK));
        // Batches are prepared and their impulses stored by region, each
        // thread taking the regions it owns in the constraint passes (see
        // `plan_homes`); so the batches are written and read on the same
        // core.
        let region_stage = |work| Stage::new(work, regions, split(regions, 1));
        stages.push(region_stage(Work::Prepare));
        for _ in 0..substeps {
            stages.push(body_stage(Work::IntegrateVelocities));
            constraints(&mut stages, Pass::WarmStart);
            constraints(&mut stages, Pass::Solve);
            stages.push(body_stage(Work::IntegratePositions));
            constraints(&mut stages, Pass::Relax);
        }
        constraints(&mut stages, Pass::Restitution);
        stages.push(region_stage(Work::StoreImpulses));
        // The null body, last, has no body to store into.
        stages.push(Stage::new(
            Work::StoreBodies,
            bodies - 1,
            split(bodies - 1, BODY_BLOCK),
        ));
        self.stages = stages;
    }
}

/// Writes into `fronts`, per region colour (whose regions end at
/// `region_color_ends`), how many of its regions the thread working from
/// the front owns (the first ones in run order, the lower ones by place;
/// see [`Solver::plan_homes`]): half, and of every other odd count the
/// middle one too, so that the two threads' shares of a pass differ by one
/// region at most.
pub(super) fn front_shares(region_color_ends: &[u32], fronts: &mut Vec<usize>) {
    fronts.clear();
    let mut odd_counts = 0;
    for region_color in 0..region_color_ends.len() {
        let regions = graph::run(region_color_ends, region_color).len();
        let middle = regions % 2 == 1 && odd_counts % 2 == 0;
        odd_counts += regions % 2;
        fronts.push(regions / 2 + usize::from(middle));
    }
}

impl Solver {
    /// Gives each thread its own regions: in every region colour the front
    /// thread owns the first regions in run order (the lower ones by place;
    /// see [`front_shares`], which fills `home_fronts`) and the back thread
    /// the rest. Each thread claims its own blocks of a stage first and
    /// leaves the other's until it has run ahead as far as it may (see
    /// [`Executor::work_on`]), so a region stays on one core from pass to
    /// pass, with its batches and most of its bodies in that core's cache;
    /// a block run on the other core than its region's pass before took
    /// 1.5–2 times as long. The stages that go region by region in no pass
    /// (preparing the batches, storing their impulses) take the front
    /// thread's regions, in the order of their places, then the back
    /// thread's, so that a thread prepares the batches it then solves.
    /// Lists that order in `home_regions`, and returns how many regions
    /// the front thread owns.
    fn plan_homes(&mut self) -> usize {
        let coloring = &self.coloring;
        let ends = &coloring.region_color_ends;
        front_shares(ends, &mut self.home_fronts);
        let fronts = &self.home_fronts;
        let is_front = |run: u32| {
            let region_color = ends.partition_point(|&end| end <= run);
            run as usize - graph::run(ends, region_color).start < fronts[region_color]
        };
        self.home_regions.clear();
        for front in [true, false] {
            let owned = coloring
                .regions_by_place
                .iter()
                .filter(|&&run| is_front(run) == front);
            self.home_regions.extend(owned);
        }
        fronts.iter().sum()
    }
}

/// One constraint set's batches, reachable from every thread, with what
/// says which contacts they come from.
struct SetPtr<'a, const N: usize> {
    /// Uninitialised until the step's first stage prepares them.
    batches: *mut WideConstraint<N>,
    /// Per batch: its bounce lanes and whether any lane can bounce, both
    /// uninitialised until the batch is prepared.
    bounces: *mut WideBounce<N>,
    bouncy: *mut bool,
    /// Per group: its range of `batches`.
    group_batches: &'a [(u32, u32)],
    /// Per batch: its range of `sources`, the contacts of its lanes.
    batch_lanes: &'a [(usize, usize)],
    sources: &'a [u32],
}

impl<'a, const N: usize> SetPtr<'a, N> {
    fn of(set: &'a ConstraintSet<N>, slots: SetSlots<'a, N>) -> SetPtr<'a, N> {
        let count = slots.batches.len();
        assert!(
            slots.bounces.len() == count && slots.bouncy.len() == count,
            "one bounce and one flag per batch"
        );
        SetPtr {
            batches: slots.batches.as_mut_ptr().cast(),
            bounces: slots.bounces.as_mut_ptr().cast(),
            bouncy: slots.bouncy.as_mut_ptr().cast(),
            group_batches: &set.group_batches,
            batch_lanes: &set.batch_lanes,
            sources: &set.sources,
        }
    }

    /// The contacts of batch `k`'s lanes.
    fn lanes(&self, k: usize) -> &[u32] {
        let (start, end) = self.batch_lanes[k];
        &self.sources[start..end]
    }

    /// The indices of the batches of groups `groups`, which are one run.
    fn batches_of(&self, groups: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let first = self.group_batches[groups.start].0;
        let end = self.group_batches[groups.end - 1].1;
        first as usize..end as usize
    }

    /// The batches of group `group`, with their bounce lanes and flags.
    ///
    /// # Safety
    /// No other live reference may cover any of these batches.
    unsafe fn batches(&self, group: usize) -> BatchRun<'_, N> {
        let (first, end) = self.group_batches[group];
        let (first, len) = (first as usize, (end - first) as usize);
        // SAFETY: the group's range lies inside the buffers; the caller
        // guarantees exclusive access.
        unsafe {
            BatchRun {
                batches: std::slice::from_raw_parts_mut(self.batches.add(first), len),
                bounces: std::slice::from_raw_parts_mut(self.bounces.add(first), len),
                bouncy: std::slice::from_raw_parts(self.bouncy.add(first), len),
            }
        }
    }
}

/// Which bodies the blocks of a stage touch.
enum BlockBodies<'a> {
    /// A region per block, of these spans.
    Regions(&'a [BodySpan]),
    /// A region per block, listed by its index in run order (the first
    /// slice), whose spans are the second.
    Listed(&'a [u32], &'a [BodySpan]),
    /// The bodies of the block's range; with, per block, whether it holds
    /// a kinematic body.
    Range(Stage, &'a [bool]),
}

impl BlockBodies<'_> {
    /// A span that holds every body block `block` writes, and every body
    /// it reads that a block of these stages may write.
    fn span(&self, block: usize) -> BodySpan {
        match self {
            BlockBodies::Regions(spans) => spans[block],
            BlockBodies::Listed(regions, spans) => spans[regions[block] as usize],
            // The per-body stages move a kinematic body, whose state the
            // regions read though it is in no region's span: so its block
            // may meet any region.
            BlockBodies::Range(_, kinematic) if kinematic[block] => BodySpan::ALL,
            BlockBodies::Range(stage, _) => {
                let (begin, end) = stage.range(block);
                BodySpan::new(begin as u32, end as u32 - 1)
            }
        }
    }
}

/// The stages of one step and what they work on, shared by every thread.
struct Executor<'a> {
    stages: &'a [Stage],
    syncs: &'a [BlockClaims],
    /// The stage being worked on, or [`FINISHED`].
    current: AtomicUsize,
    states: StatesPtr,
    state_count: usize,
    /// Read while batches are prepared; each moving body's centre written
    /// when its motion is stored.
    masses: *mut BodyMass,
    mass_count: usize,
    motions: &'a [BodyMotion],
    dynamic: &'a [bool],
    /// Read while batches are prepared, written when impulses are stored.
    contacts: *mut Contact,
    contact_count: usize,
    /// Per contact: its bodies (read while batches are prepared).
    ends: &'a [ContactEnds],
    /// When the bodies are kept in an order of their own (see
    /// [`super::order`]): per body its slot, and per slot its body.
    slot_of: Option<&'a [u32]>,
    body_of: Option<&'a [u32]>,
    /// Written when the motion is stored (one per state but the last).
    bodies: *mut Body,
    /// Per body, written when its motion is stored: whether its start pose
    /// is kept, and the pose (see [`super::start`]).
    kept: *mut Kept,
    start_poses: *mut MaybeUninit<StartPose>,
    /// When bodies may sleep: their timer, and per body its readiness,
    /// written when its motion is stored.
    rest: Option<(SleepTimer, *mut Readiness)>,
    ones: SetPtr<'a, 1>,
    twos: SetPtr<'a, 2>,
    /// Per region, in run order: the end of its groups.
    region_ends: &'a [u32],
    /// Per region colour: the end of its regions.
    region_color_ends: &'a [u32],
    /// Per region in run order: the span of the dynamic bodies it moves.
    region_spans: &'a [BodySpan],
    /// The regions in the order the by-region stages take them (see
    /// [`Solver::plan_homes`]), by their index in run order.
    home_regions: &'a [u32],
    /// Per block of an integration stage: whether it holds a kinematic
    /// body.
    kinematic_blocks: &'a [bool],
    isa: Isa,
    passes: &'a StepPasses<'a>,
}

// SAFETY: the raw pointers are dereferenced only inside `run_block`, and
// the blocks of a stage are disjoint and handed out once each; a block of
// a stage runs only after every block of the stages before is done, or
// early when its span meets that of no unfinished block of those stages
// (see `Executor::run_ahead`). Within a
// stage the contacts are either only read (preparing) or each written by
// one lane of one batch (storing), and the masses either only read
// (preparing) or each written by the block that stores its body.
unsafe impl Sync for Executor<'_> {}

impl Executor<'_> {
    /// Publishes each stage in turn, works on it (and early on the next
    /// few; see [`Executor::work_on`]), and waits until all its blocks are
    /// done (a helper may still be finishing one).
    fn lead(&self) {
        // Finished however the leader ends, so that helpers stop waiting
        // for the next stage even if a block panics here.
        let _finished = OnDrop(|| self.current.store(FINISHED, Ordering::Release));
        for (index, stage) in self.stages.iter().enumerate() {
            self.current.store(index, Ordering::Release);
            self.work_on(index, End::Front);
            self.syncs[index].wait_for(stage.blocks);
        }
    }

    /// Works on the current stage, and on each next one as soon as every
    /// block of the one before is done (published by the leader or not),
    /// until the leader finishes.
    fn help(&self) {
        let mut index = self.current.load(Ordering::Acquire);
        while index < self.stages.len() {
            self.work_on(index, End::Back);
            let blocks = self.stages[index].blocks;
            let mut spins = 0;
            loop {
                let now = self.current.load(Ordering::Acquire);
                if now == FINISHED {
                    return;
                }
                if now > index {
                    index = now;
                    break;
                }
                if self.syncs[index].all_done(blocks) {
                    index += 1;
                    break;
                }
                pause(&mut spins);
            }
        }
    }

    /// While other threads finish stage `index`, claims this thread's own
    /// blocks of the stages after it and runs them, as long as a block's
    /// span meets that of no block not yet finished in the stages from
    /// `index` up to its own (see [`Executor::run_one_ahead`]). A block
    /// writes only what belongs to its region (batches; contacts, storing
    /// impulses) and to the bodies in its span (states; bodies, masses and
    /// the like, storing bodies), and reads besides only what of the other
    /// bodies no block of these stages writes (fixed bodies; a kinematic
    /// body, which only the per-body stages write, puts its block's span
    /// over every body). Two blocks of one region have the same span, which
    /// is not empty if the region has batches. So the block computes what
    /// it would after all the blocks before it, and the result stays the
    /// same bits.
    ///
    /// The thread working from the front owns low regions or bodies, which
    /// lie far from the middle ones a stage ends with, and the thread
    /// working from the back high ones: so the threads fill in what would
    /// be waits at the stage's end, and leave each other's blocks to their
    /// owners.
    fn run_ahead(&self, index: usize, end: End) {
        let blocks = self.stages[index].blocks;
        while !self.syncs[index].all_done(blocks) {
            if !self.run_one_ahead(index, end) {
                return;
            }
        }
    }

    /// Claims from `end` and runs one of this thread's own blocks of the
    /// next stages after `index`, the nearest first and at most
    /// [`STAGES_AHEAD`] ahead, that is clear of every unfinished block of
    /// the stages from `index` up to its own; says whether it found one.
    /// Every stage on the way must be one whose blocks' bodies are known by
    /// a span (see [`Executor::block_bodies`]).
    fn run_one_ahead(&self, index: usize, end: End) -> bool {
        if self.block_bodies(index).is_none() {
            return false;
        }
        for ahead in index + 1..=index + STAGES_AHEAD {
            let Some(bodies) = self.block_bodies(ahead) else {
                return false;
            };
            let (stage, claims) = (&self.stages[ahead], &self.syncs[ahead]);
            let clear = |block: usize| {
                let span = bodies.span(block);
                (index..ahead).all(|before| self.clear_of_unfinished(before, span))
            };
            if let Some(block) = claims.claim_own_if(end, stage.blocks, clear) {
                // SAFETY: the block is this thread's alone, and touches no
                // body that a block before it still to finish writes, nor
                // writes one that such a block touches (checked above).
                claims.run_claimed(end, block, |block| unsafe { self.run_block(stage, block) });
                return true;
            }
        }
        false
    }

    /// Whether `span` meets no unfinished block of stage `index`, whose
    /// blocks' bodies must be known by a span.
    fn clear_of_unfinished(&self, index: usize, span: BodySpan) -> bool {
        let Some(bodies) = self.block_bodies(index) else {
            return false;
        };
        let finished = self.syncs[index].finished();
        (0..self.stages[index].blocks)
            .all(|k| finished.contains(k) || !bodies.span(k).overlaps(span))
    }

    /// Which bodies each block of stage `index` touches, when a span says:
    /// for a pass over the regions of one region colour (not the
    /// overflowed ones, which share a block), and for preparing batches or
    /// storing their impulses region by region, a block's region's span
    /// (which also orders a region's own batches and contacts between
    /// stages); for integrating or storing bodies, the block's bodies, or
    /// all of them if it moves a kinematic body.
    fn block_bodies(&self, index: usize) -> Option<BlockBodies<'_>> {
        let stage = self.stages.get(index)?;
        match stage.work {
            Work::Prepare | Work::StoreImpulses => {
                let homes = BlockBodies::Listed(self.home_regions, self.region_spans);
                (stage.block_len == 1).then_some(homes)
            }
            Work::Constraints { region_color, .. } => {
                let overflow = region_color + 1 == self.region_color_ends.len();
                let regions = graph::run(self.region_color_ends, region_color);
                let one_each = stage.block_len == 1 && stage.blocks == regions.len();
                (!overflow && one_each).then(|| BlockBodies::Regions(&self.region_spans[regions]))
            }
            Work::IntegrateVelocities | Work::IntegratePositions | Work::StoreBodies => {
                Some(BlockBodies::Range(*stage, self.kinematic_blocks))
            }
        }
    }

    /// Claims and runs blocks of stage `index` from `end` until none are
    /// left: this thread's own first (see [`Solver::plan_homes`]), then,
    /// having run ahead as far as it may on its own blocks of the next
    /// stages, what is left of the other thread's.
    fn work_on(&self, index: usize, end: End) {
        let stage = &self.stages[index];
        let claims = &self.syncs[index];
        // SAFETY: each block of a stage is claimed exactly once, and the
        // blocks of a stage touch disjoint data (see the type's docs).
        let run = |block| unsafe { self.run_block(stage, block) };
        while let Some(block) = claims.claim_own_if(end, stage.blocks, |_| true) {
            claims.run_claimed(end, block, run);
        }
        self.run_ahead(index, end);
        claims.work(end, stage.blocks, run);
        self.run_ahead(index, end);
    }
}

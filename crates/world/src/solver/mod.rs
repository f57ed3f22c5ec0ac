//! The substepped soft-contact solver.
//!
//! One step of length `dt` with `n` substeps of `h = dt/n`:
//!
//! 1. **prepare** each contact constraint once: anchors, effective masses,
//!    softness, warm-start impulses;
//! 2. per substep: **integrate velocities** (gravity, damping), **warm
//!    start**, **solve** with a bounded push-out bias (this is what pushes
//!    bodies out of walls and each other), **integrate positions**, and
//!    **relax** without bias, removing the push-out velocity;
//! 3. **restitution**, then **store** the impulses for the next step.
//!
//! Constraints are grouped into regions and by graph colour within each
//! region ([`crate::graph`]); within a colour no two constraints share a
//! dynamic body, so they are solved eight at a time in SIMD lanes, and no
//! two regions of one region colour share one either, so those regions can
//! be solved by several threads at once, split any way, with a result that
//! is bit-identical for any number of threads. [`stages`] runs the
//! preparing, the substeps and the storing, on as many threads as the pool
//! has, with one fork-join per step.

#[cfg(target_arch = "x86_64")]
mod avx;
mod batch;
mod contact;
mod integrate;
mod lanes;
mod order;
mod stages;
mod start;
mod wide;

use carom_shapes::{Rot, Transform};
use glam::Vec2;
use rayon::prelude::*;

use crate::body::{Body, BodyKind};
use crate::buffer::{resize_to_overwrite, Room, SharedScratch};
use crate::contacts::{Contact, ContactEnds, ContactSet};
use crate::graph::{self, BodyMark, Coloring, ColoringSlots};
use crate::settings::{WorldSettings, MAX_TURN_PER_SUBSTEP};
use crate::sleep::{Readiness, SleepTimer};
use crate::threading::{with_helper, HelperBoard, Threading};
use batch::{BatchSlots, ConstraintSet};
use contact::{Restitution, Softness, Solve, SolveContext};
use integrate::{BodyMotion, BodyState, MotionLimits};
use order::{ContactsInOrder, SlotOrder};
pub(crate) use start::{StartPose, StartPoses};

/// Bodies handed to one task when loading, and per block of an
/// integration stage.
const BODY_BLOCK: usize = 512;

/// Most contacts per region of the constraint graph (see
/// [`crate::graph`]): a region's bodies' states (some 1,500 in a pile,
/// 48 KB) stay in a core's cache while its colours are solved, and a pile
/// of 10,000 circles has enough regions to share among threads.
const REGION_CONTACTS: usize = 2048;
/// Below this many contacts the constraints are coloured as one region:
/// such a step runs its constraint passes on one thread (see `stages`),
/// and its bodies' states fit in a core's cache anyway. Four regions or
/// more give two threads enough to share.
const MIN_REGIONED_CONTACTS: usize = 8192;

/// How many contacts each region of a step's `count` holds: all of them
/// below [`MIN_REGIONED_CONTACTS`], else an even number of regions of
/// equal length, each of at most [`REGION_CONTACTS`], the last one shorter
/// by less than the number of regions (the count stays even up to some
/// four million contacts; beyond, it may be odd). Two threads each own
/// half of every pass's regions (see `stages`), so an even count of equal
/// ones gives them the same work: cut at 2,048 contacts each, the hopper's
/// pile had eleven full regions and a twelfth that took a tenth as long to
/// solve, and the thread owning six full ones kept the other waiting for
/// one in every pass. The length depends on the contacts alone, never on
/// the threads.
fn region_len(count: usize) -> usize {
    if count < MIN_REGIONED_CONTACTS {
        return count.max(1);
    }
    let regions = count.div_ceil(REGION_CONTACTS).next_multiple_of(2);
    count.div_ceil(regions)
}

/// A body's centre and inverse masses, as constraints are prepared: four
/// `f32` in this order (the AVX2 path loads them as one quad).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
struct BodyMass {
    center: Vec2,
    inv_mass: f32,
    inv_inertia: f32,
}

/// Proof that [`Solver::load`] ran for the step [`Solver::step`] is about
/// to take.
#[must_use]
pub(crate) struct Loaded(());

/// The solver's buffers, kept between steps so a step does not allocate.
#[derive(Debug, Default)]
pub(crate) struct Solver {
    states: Vec<BodyState>,
    /// Per body: what preparing a constraint reads, packed in 16 bytes.
    masses: Vec<BodyMass>,
    motions: Vec<BodyMotion>,
    dynamic: Vec<bool>,
    /// Per block of [`BODY_BLOCK`] bodies: whether it holds a kinematic
    /// body, which integration moves though no constraint does (see
    /// `stages`).
    kinematic_blocks: Vec<bool>,
    /// Constraints with one point (a circle touching anything).
    ones: ConstraintSet<1>,
    /// Constraints with two points (a capsule lying on a wall or another).
    twos: ConstraintSet<2>,
    coloring: Coloring,
    /// The instruction set the constraint passes run with.
    isa: Isa,
    /// The stages of a step on several threads, and their progress.
    stages: Vec<stages::Stage>,
    stage_syncs: Vec<crate::threading::BlockClaims>,
    /// Per region colour, how many of its regions the thread working from
    /// the front owns, and the regions in the order the stages that go
    /// region by region in no pass take them (see `stages`).
    home_fronts: Vec<usize>,
    home_regions: Vec<u32>,
    start_poses: StartPoses,
    /// What the per-body arrays were last loaded for, while they still
    /// hold what a load would give (see [`Solver::load`]).
    loaded_for: Option<LoadedFor>,
    /// The order of the bodies in the per-body arrays when it is not their
    /// index order (see [`order`]).
    order: Option<SlotOrder>,
    /// Steps solved since the order was last made, and whether the last
    /// one asked for a new order: its regions met each other too much.
    order_age: u32,
    reorder: bool,
    /// With an order: the contacts as the colouring takes them.
    in_order: ContactsInOrder,
}

/// Steps a body order is kept before another may be made, so that a world
/// whose regions stay tangled in any order is not sorted step after step.
const ORDER_MIN_AGE: u32 = 60;

/// What the per-body arrays depend on besides the bodies: how many there
/// are, the substep and gravity (as bits, so that equal means the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LoadedFor {
    bodies: usize,
    substep: u32,
    gravity: [u32; 2],
}

/// The instruction set the constraint passes are compiled for. Both give
/// the same bits: they perform the same IEEE operations in the same order,
/// and AVX2 only encodes them better (three-operand forms, no register
/// copies between SSE halves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    /// SSE2 on x86-64, or whatever the target offers elsewhere.
    Portable,
    /// x86-64 with AVX2, detected at run time.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Default for Isa {
    /// The best the processor running this offers.
    fn default() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Isa::Avx2;
        }
        Isa::Portable
    }
}

/// Raw access to the body states for colour-parallel solving.
///
/// Safety argument: within one colour every dynamic body appears in at
/// most one constraint, so each dynamic state is read and written by one task
/// only; static and kinematic states are only read during the colour loop.
#[derive(Clone, Copy)]
struct StatesPtr(*mut BodyState);
// SAFETY: see the type's documentation; the pointer is only used inside the
// colour loop, where accesses are disjoint.
unsafe impl Send for StatesPtr {}
// SAFETY: as above.
unsafe impl Sync for StatesPtr {}

impl StatesPtr {
    /// Pointer to state `i`. A method (not a field access) so closures
    /// capture the whole `Send + Sync` wrapper.
    #[inline]
    fn at(self, i: u32) -> *mut BodyState {
        // SAFETY: callers pass indices of `states`, the buffer this points into.
        unsafe { self.0.add(i as usize) }
    }
}

impl Solver {
    /// Makes the constraint passes run with `isa` (tests compare the paths).
    #[cfg(test)]
    pub fn set_isa(&mut self, isa: Isa) {
        self.isa = isa;
    }

    /// Advances every body by one step of `settings.dt`, resolving contacts;
    /// the bodies must be as [`Solver::load`] read them. When bodies may
    /// sleep, `readiness` is given one slot per body, and each body's
    /// sleep timer is advanced and its readiness noted there as its motion
    /// is stored (except for a body fast enough to be swept, whose slot is
    /// left for [`crate::sleep::Islands::fall_asleep`]). Returns how many
    /// colours the constraint graph took.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        settings: &WorldSettings,
        bodies: &mut [Body],
        contacts: &mut ContactSet,
        threading: Threading,
        scratch: &mut SharedScratch,
        readiness: Option<&mut [Readiness]>,
        _loaded: Loaded,
    ) -> usize {
        let substeps = settings.substeps;
        let h = substep(settings);
        // The colouring's lists are needed only until the constraints are
        // grouped; the batches then take the same memory. The colouring
        // reads only the contacts' ends, so the contacts' moves that the
        // narrowphase left to make (see `ContactSet::update`) wait on the
        // board as an errand, for the thread that made those contacts.
        let (ends, moves) = contacts.ends_and_moves();
        if threading == Threading::Pool && ends.len() >= MIN_REGIONED_CONTACTS {
            // Another thread colours a part of the regions, and then waits
            // on the board until the stages begin, awake to join them.
            let lead = |board: &HelperBoard| {
                let color = || {
                    self.color(ends, scratch, Some(board));
                    self.group_batches();
                };
                board.with_errand(|| moves.make(), color);
            };
            with_helper(lead, || ());
        } else {
            moves.make();
            self.color(ends, scratch, None);
            self.group_batches();
        }
        // Stiffness is capped at a quarter of the substep rate for stability;
        // contacts with an immovable body get twice the frequency, since only
        // one body moves to resolve them.
        let hertz = settings.contact_hertz.min(0.25 / h);
        let ctx = SolveContext {
            inv_h: 1.0 / h,
            push_speed: settings.contact_push_speed,
            restitution_threshold: settings.restitution_threshold,
            soft: Softness::new(hertz, settings.contact_damping_ratio, h),
            stiff: Softness::new(2.0 * hertz, settings.contact_damping_ratio, h),
        };
        let slots = BatchSlots::lend(scratch, self.ones.batch_count(), self.twos.batch_count());
        let limits = MotionLimits {
            max_linear_speed: settings.max_linear_speed,
            max_rotation: MAX_TURN_PER_SUBSTEP,
        };
        let solve = Solve {
            ctx,
            use_bias: true,
        };
        let relax = Solve {
            ctx,
            use_bias: false,
        };
        let passes = stages::StepPasses {
            substeps,
            h,
            limits: &limits,
            solve: &solve,
            relax: &relax,
            restitution: &Restitution { ctx },
        };
        // Preparing the batches, the substeps and storing what they did run
        // as one sequence of stages on the same threads.
        let (contacts, ends) = contacts.split_mut();
        let rest = SleepTimer::of(settings).zip(readiness);
        assert_eq!(
            rest.is_some(),
            settings.sleep,
            "readiness slots when bodies may sleep"
        );
        let written = StepOutputs {
            contacts,
            ends,
            bodies,
            rest,
        };
        self.run_stages(&passes, threading, slots, written);
        self.coloring.color_count()
    }

    /// Where the last step's fast and kinematic bodies began it, which
    /// continuous collision sweeps them from.
    pub fn start_poses(&self) -> &StartPoses {
        &self.start_poses
    }

    /// Copies what the step reads of `bodies` (velocities, masses, motion)
    /// into the solver's arrays, and makes room for the start poses the
    /// step keeps as it stores the bodies. Must come after anything that
    /// changes the bodies (waking them included) and before
    /// [`Solver::step`], which takes the returned token; it reads neither
    /// the contacts nor the broadphase, so it may run beside them.
    ///
    /// The step's last stage leaves in the arrays what this would load
    /// from the bodies it stores (their velocities and centres; nothing
    /// else of theirs changes in a step), so unless the bodies `changed`
    /// since, or their number, the substep or gravity did, the arrays are
    /// kept as they are: copying them is a pass over every body that, at
    /// 100,000 bodies, streams 11 MB.
    pub fn load(
        &mut self,
        settings: &WorldSettings,
        bodies: &[Body],
        threading: Threading,
        changed: bool,
    ) -> Loaded {
        let h = substep(settings);
        let n = bodies.len();
        let wanted = LoadedFor {
            bodies: n,
            substep: h.to_bits(),
            gravity: settings.gravity.to_array().map(f32::to_bits),
        };
        if self.order.as_ref().is_some_and(|o| o.bodies() != n) {
            self.order = None;
        }
        let reorder = std::mem::take(&mut self.reorder);
        if reorder {
            let mut order = self.order.take().unwrap_or_default();
            order.arrange_along_rows(bodies);
            self.order = Some(order);
            self.order_age = 0;
        }
        if !changed && !reorder && self.loaded_for == Some(wanted) {
            return Loaded(());
        }
        self.loaded_for = Some(wanted);
        // One entry more than there are bodies for the null body (below),
        // sized up front: pushing it would double the arrays' capacity.
        resize_to_overwrite(&mut self.states, n + 1, BodyState::AT_REST);
        resize_to_overwrite(&mut self.motions, n + 1, BodyMotion::STILL);
        resize_to_overwrite(&mut self.dynamic, n + 1, false);
        resize_to_overwrite(&mut self.masses, n + 1, BodyMass::default());
        // A block more for the null body when it begins one.
        let blocks = n.div_ceil(BODY_BLOCK);
        resize_to_overwrite(
            &mut self.kinematic_blocks,
            (n + 1).div_ceil(BODY_BLOCK),
            false,
        );
        self.start_poses.resize(n);
        // The body kept in each slot.
        let body_of = self.order.as_ref().map(SlotOrder::body_of);
        let body_at = |slot: usize| &bodies[body_of.map_or(slot, |order| order[slot] as usize)];
        // One parallel loop fills every per-body array: each parallel loop
        // costs a thread wake-up, which is worth more than this work.
        (
            self.states[..n].par_chunks_mut(BODY_BLOCK),
            self.masses[..n].par_chunks_mut(BODY_BLOCK),
            self.motions[..n].par_chunks_mut(BODY_BLOCK),
            self.dynamic[..n].par_chunks_mut(BODY_BLOCK),
            self.kinematic_blocks[..blocks].par_iter_mut(),
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(threading.min_len())
            .for_each(|(block, (states, masses, motions, dynamic, kinematic))| {
                let first = block * BODY_BLOCK;
                let slots = first..first + states.len();
                *kinematic = slots
                    .clone()
                    .any(|s| body_at(s).kind == BodyKind::Kinematic);
                for (k, b) in slots.map(body_at).enumerate() {
                    states[k] = load_state(b);
                    masses[k] = BodyMass {
                        center: b.center,
                        inv_mass: b.inv_mass,
                        inv_inertia: b.inv_inertia,
                    };
                    motions[k] = load_motion(b, settings, h);
                    dynamic[k] = b.is_awake_dynamic();
                }
            });
        // The null body: an immovable state that padding lanes of a SIMD
        // batch point at.
        self.states[n] = BodyState::AT_REST;
        self.masses[n] = BodyMass::default();
        self.motions[n] = BodyMotion::STILL;
        self.dynamic[n] = false;
        self.kinematic_blocks[blocks..].fill(false);
        Loaded(())
    }

    /// Whether the per-body arrays hold exactly what loading `bodies` afresh
    /// (in the same order) would give.
    #[cfg(test)]
    pub fn holds_what_loading_gives(&self, settings: &WorldSettings, bodies: &[Body]) -> bool {
        let mut fresh = Solver {
            order: self.order.clone(),
            ..Solver::default()
        };
        let _loaded = fresh.load(settings, bodies, Threading::Calling, true);
        let n = bodies.len() + 1;
        self.loaded_for == fresh.loaded_for
            && self.states[..n] == fresh.states[..]
            && self.masses[..n] == fresh.masses[..]
            && self.motions[..n] == fresh.motions[..]
            && self.dynamic[..n] == fresh.dynamic[..]
    }

    /// Colours the contacts that move a body (those among sleeping or fixed
    /// bodies need no constraint), in regions once there are enough of
    /// them, and lists the constraints of each point count in the order
    /// the solver runs them (see [`Coloring`]), with `helper`'s help when
    /// given.
    fn color(
        &mut self,
        contacts: &[ContactEnds],
        scratch: &mut SharedScratch,
        helper: Option<&HelperBoard>,
    ) {
        let dynamic = &self.dynamic;
        let count = contacts.len();
        // One body entry per state: the null body's, last, stands for the
        // fixed bodies.
        let marks = ColoringSlots::marks_for(dynamic.len() - 1);
        let mut room = scratch.room(
            Room::bytes_for::<BodyMark>(marks)
                + Room::bytes_for::<u8>(count)
                + Room::bytes_for::<u32>(2 * count),
        );
        let sized = "the room was sized for the colouring";
        let slots = ColoringSlots {
            marks: room.take(marks).expect(sized),
            keys: room.take(count).expect(sized),
            firsts: room.take(2 * count).expect(sized),
        };
        // With an order of their own, the bodies are named by their slots,
        // and the contacts taken by where their bodies lie in it.
        let (ids, contacts) = match &self.order {
            Some(order) => {
                let (ids, ends) = order.sort_contacts(contacts, &mut self.in_order);
                (Some(ids), ends)
            }
            None => (None, contacts),
        };
        let ends = |i: usize| {
            let c = contacts[i];
            let [a, b] = c.bodies();
            let end = |b: u32| dynamic[b as usize].then_some(b);
            let moves = dynamic[a as usize] || dynamic[b as usize];
            moves.then(|| ([end(a), end(b)], c.has_two_points()))
        };
        let region_len = region_len(count);
        // One-point constraints are the first kind, two-point ones the
        // second.
        let lists = [&mut self.ones.sources, &mut self.twos.sources];
        self.coloring
            .build(count, ends, region_len, slots, lists, ids, helper);
    }

    /// Cuts the constraints of each point count, which colouring listed,
    /// into their groups (the colours of each region), and plans their
    /// SIMD batches.
    fn group_batches(&mut self) {
        self.ones.group_ends.clear();
        self.twos.group_ends.clear();
        let region_ends = &self.coloring.region_ends;
        for region in 0..region_ends.len() {
            let groups = graph::run(region_ends, region);
            for g in groups.clone() {
                let [ones, twos] = self.coloring.group_ends[g];
                // A region's last group is its overflow set.
                let overflow = g + 1 == groups.end;
                self.ones.group_ends.push((ones, overflow));
                self.twos.group_ends.push((twos, overflow));
            }
        }
        self.ones.plan_batches();
        self.twos.plan_batches();
    }
}

/// What a step writes besides the solver's own state: impulses into the
/// contacts and motion into the bodies.
struct StepOutputs<'a> {
    contacts: &'a mut [Contact],
    /// The contacts' bodies, read as constraints are prepared.
    ends: &'a [ContactEnds],
    bodies: &'a mut [Body],
    /// When bodies may sleep: their timer, and a slot per body for its
    /// readiness.
    rest: Option<(SleepTimer, &'a mut [Readiness])>,
}

/// The length of a substep, `dt / substeps`: one expression, so that what
/// [`Solver::load`] keeps its arrays for is the substep [`Solver::step`]
/// runs.
fn substep(settings: &WorldSettings) -> f32 {
    settings.dt / settings.substeps as f32
}

/// Writes a step's motion, `state`, back into its body, if it moves;
/// returns whether it did.
fn store_body(b: &mut Body, state: &BodyState) -> bool {
    if b.kind == BodyKind::Static || b.is_sleeping() {
        return false;
    }
    b.linear_velocity = state.v;
    b.angular_velocity = state.w;
    b.center += state.dp;
    b.angle += state.da;
    let q = state.dq.mul(b.transform.rotation);
    set_pose(b, q);
    true
}

/// A body's solver state at the start of the step: its velocities, if it
/// moves.
fn load_state(b: &Body) -> BodyState {
    let moves = b.is_moving();
    BodyState {
        v: if moves { b.linear_velocity } else { Vec2::ZERO },
        w: if moves { b.angular_velocity } else { 0.0 },
        ..BodyState::AT_REST
    }
}

/// What integrating a body needs for the step: gravity, damping factors
/// for substeps of `h`, and whether it moves at all.
fn load_motion(b: &Body, settings: &WorldSettings, h: f32) -> BodyMotion {
    BodyMotion {
        gravity: if b.is_awake_dynamic() {
            b.gravity_scale * settings.gravity
        } else {
            Vec2::ZERO
        },
        linear_damping: 1.0 / (1.0 + h * b.linear_damping),
        angular_damping: 1.0 / (1.0 + h * b.angular_damping),
        moves: b.kind == BodyKind::Kinematic || b.is_awake_dynamic(),
    }
}

/// Places a body from its centre of mass and a rotation (renormalised so
/// rounding cannot accumulate over many steps).
pub(crate) fn set_pose(b: &mut Body, q: Rot) {
    let inv_len = 1.0 / (q.c * q.c + q.s * q.s).sqrt();
    let rotation = Rot {
        c: q.c * inv_len,
        s: q.s * inv_len,
    };
    b.transform = Transform {
        translation: b.center - rotation.rotate(b.local_center),
        rotation,
    };
}

#[cfg(test)]
mod tests {
    use std::mem::MaybeUninit;

    #[cfg(target_arch = "x86_64")]
    use super::batch::prepare_batch_avx2;
    use super::batch::PrepareView;
    use super::contact::ContactConstraint;
    use super::wide::WideConstraint;
    use super::*;
    use crate::scene::Scene;

    proptest::proptest! {
        /// A regioned step's contacts fall into an even number of regions
        /// of at most `REGION_CONTACTS`, the last one shorter by less than
        /// their number; a smaller step's into one.
        #[test]
        fn regions_are_even_and_equal(
            count in proptest::prop_oneof![0..MIN_REGIONED_CONTACTS, MIN_REGIONED_CONTACTS..4_000_000]
        ) {
            let len = region_len(count);
            let regions = count.div_ceil(len);
            if count < MIN_REGIONED_CONTACTS {
                proptest::prop_assert!(regions <= 1);
            } else {
                let last = count - (regions - 1) * len;
                proptest::prop_assert!(len <= REGION_CONTACTS);
                proptest::prop_assert_eq!(regions % 2, 0);
                proptest::prop_assert!(len - last < regions, "{} regions of {}, last {}", regions, len, last);
            }
        }
    }

    /// Checks that preparing eight constraints at once, on `f32x8` lanes and
    /// on the AVX2 path when the processor has it, gives, bit for bit, the
    /// eight constraints prepared one at a time and packed. Returns how
    /// many batches had no bouncy lane, and how many had one or more.
    fn check_batches<const N: usize>(
        set: &ConstraintSet<N>,
        view: &PrepareView,
        null_body: u32,
    ) -> (usize, usize) {
        let mut checked = 0;
        let mut bouncy = 0;
        for &(start, end) in &set.batch_lanes {
            let sources = &set.sources[start..end];
            let contacts = sources.iter().map(|&k| &view.contacts[k as usize]);
            bouncy += usize::from(contacts.clone().any(|c| c.restitution > 0.0));
            let (wide, bounce) =
                WideConstraint::<N>::prepare(&view.batch_input(sources, null_body).lanes());
            let one_by_one: Vec<ContactConstraint<N>> = sources
                .iter()
                .map(|&k| view.prepare_one(k as usize))
                .collect();
            let (packed, packed_bounce) = WideConstraint::pack(&one_by_one, null_body);
            let expected = packed.bits(&packed_bounce);
            assert_eq!(wide.bits(&bounce), expected, "batch at {start}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                let (mut avx, mut avx_bounce) = (MaybeUninit::uninit(), MaybeUninit::uninit());
                // SAFETY: the processor has AVX2.
                unsafe {
                    prepare_batch_avx2::<N>(view, sources, null_body, &mut avx, &mut avx_bounce)
                };
                // SAFETY: just written.
                let (avx, avx_bounce) = unsafe { (avx.assume_init(), avx_bounce.assume_init()) };
                assert_eq!(avx.bits(&avx_bounce), expected, "AVX2 batch at {start}");
            }
            checked += 1;
        }
        assert!(checked > 0, "no batch with {N} points was checked");
        (checked - bouncy, bouncy)
    }

    /// Steps the world `make` builds `steps` times in pools of one, two and
    /// three threads, checks each with `check`, and asserts that all three
    /// end in the same state, bit for bit.
    fn assert_same_bits_on_any_thread_count(
        make: impl Fn() -> crate::World,
        steps: usize,
        check: impl Fn(&crate::World),
    ) {
        let run = |world: &mut crate::World| {
            for _ in 0..steps {
                world.step();
            }
        };
        assert_same_bits_when_run_on_any_thread_count(make, run, check);
    }

    /// [`assert_same_bits_on_any_thread_count`], with the world driven by
    /// `run` inside each pool.
    fn assert_same_bits_when_run_on_any_thread_count(
        make: impl Fn() -> crate::World,
        run: impl Fn(&mut crate::World) + Sync,
        check: impl Fn(&crate::World),
    ) {
        let hashes = [1, 2, 3].map(|threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut world = make();
            pool.install(|| run(&mut world));
            check(&world);
            world.state_hash()
        });
        assert!(hashes[1..].iter().all(|&h| h == hashes[0]), "{hashes:x?}");
    }

    #[test]
    fn a_falling_crowd_shares_its_body_stages_and_falls_as_free_fall_says() {
        // 9,000 circles a metre apart, far above the floor: no contact
        // for the steps run, so no constraint either.
        let crowd = || {
            let mut world = crate::World::new(crate::WorldSettings::default()).unwrap();
            let ground = world.create_body(crate::BodyDef::fixed()).unwrap();
            let floor = carom_shapes::Segment::new(Vec2::new(-100.0, 0.0), Vec2::new(100.0, 0.0));
            let material = crate::Material::default();
            world.add_shape(ground, floor.unwrap(), material).unwrap();
            for i in 0..9_000 {
                let (x, y) = ((i % 90) as f32 - 45.0, 200.0 + (i / 90) as f32);
                let circle = crate::BodyDef::dynamic().position(x, y);
                let circle = world.create_body(circle).unwrap();
                let shape = carom_shapes::Circle::new(Vec2::ZERO, 0.25).unwrap();
                world.add_shape(circle, shape, material).unwrap();
            }
            world
        };
        let steps = 12;
        let run = |world: &mut crate::World| {
            for _ in 0..steps {
                world.step();
            }
            let shared = world.solver.stages.iter().any(stages::Stage::is_split);
            assert_eq!(shared, rayon::current_num_threads() > 1);
        };
        let fell = |world: &crate::World| {
            // Symplectic Euler over N substeps of h from rest: g·h²·N(N+1)/2.
            let settings = world.settings();
            let h = settings.dt / settings.substeps as f32;
            let n = (steps * settings.substeps as usize) as f32;
            let drop = -settings.gravity.y * h * h * n * (n + 1.0) / 2.0;
            for (i, body) in world.bodies().skip(1).enumerate() {
                let y0 = 200.0 + (i / 90) as f32;
                let fallen = y0 - body.position().y;
                assert!(
                    (fallen - drop).abs() <= 1e-4 * y0,
                    "{fallen} against {drop}"
                );
            }
        };
        assert_same_bits_when_run_on_any_thread_count(crowd, run, fell);
    }

    #[test]
    fn a_large_pile_is_solved_in_regions_with_the_same_bits_on_any_thread_count() {
        let pile = || Scene::circle_pile(12_000).build_world().unwrap();
        assert_same_bits_on_any_thread_count(pile, 90, |world| {
            let coloring = &world.solver.coloring;
            assert!(
                coloring.region_ends.len() > 4 && coloring.region_color_ends.len() > 2,
                "{} regions in {} region colours",
                coloring.region_ends.len(),
                coloring.region_color_ends.len()
            );
            // So several threads shared the stages.
            assert!(coloring.region_speedup(2) >= stages::MIN_REGION_SPEEDUP);
            // Each region is prepared once, the front thread's first.
            let solver = &world.solver;
            let mut homes = solver.home_regions.clone();
            homes.sort_unstable();
            assert!(homes
                .iter()
                .copied()
                .eq(0..coloring.region_ends.len() as u32));
            let front: usize = solver.home_fronts.iter().sum();
            let ends = &coloring.region_color_ends;
            for (k, &run) in solver.home_regions.iter().enumerate() {
                let color = ends.partition_point(|&end| end <= run);
                let owned =
                    (run as usize - graph::run(ends, color).start) < solver.home_fronts[color];
                assert_eq!(owned, k < front, "region {run} at {k}");
            }
        });
    }

    #[test]
    fn each_thread_owns_half_of_a_pass_give_or_take_a_region() {
        let mut fronts = Vec::new();
        let counts = [[5, 5, 2, 0], [3, 2, 3, 1], [1, 1, 1, 1], [0, 7, 0, 9]];
        for counts in counts {
            let ends: Vec<u32> = counts
                .iter()
                .scan(0, |end, &n| {
                    *end += n;
                    Some(*end)
                })
                .collect();
            stages::front_shares(&ends, &mut fronts);
            assert!(fronts
                .iter()
                .zip(counts)
                .all(|(&f, n)| f == n as usize / 2 || f == n as usize / 2 + 1));
            let front: usize = fronts.iter().sum();
            let back = ends[3] as usize - front;
            assert!(front == back || front == back + 1, "{counts:?}: {fronts:?}");
        }
    }

    /// The circles of a pile of `n` (see `Scene::circle_pile`) created in
    /// a shuffled order, in a box of their own.
    fn scrambled_pile(n: u32) -> crate::World {
        let pile = Scene::circle_pile(n).build_world().unwrap();
        let mut circles: Vec<Vec2> = pile
            .bodies()
            .filter(|b| b.kind() == BodyKind::Dynamic)
            .map(|b| b.position())
            .collect();
        let mut world = crate::World::new(*pile.settings()).unwrap();
        let material = crate::Material::default();
        // A box around the pile, as the pile's own.
        let half = 1.0 + circles.iter().map(|c| c.x.abs()).fold(0.0, f32::max);
        let corners = [(-half, 40.0), (-half, 0.0), (half, 0.0), (half, 40.0)];
        let corners = corners.map(|(x, y)| Vec2::new(x, y));
        let ground = world.create_body(crate::BodyDef::fixed()).unwrap();
        for side in corners.windows(2) {
            let wall = carom_shapes::Segment::new(side[0], side[1]).unwrap();
            world.add_shape(ground, wall, material).unwrap();
        }
        // Shuffled (Fisher–Yates, drawing from a fixed linear
        // congruential sequence).
        let mut draw = 12_345_u64;
        for i in (1..circles.len()).rev() {
            draw = draw.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            circles.swap(i, (draw >> 33) as usize % (i + 1));
        }
        for c in circles {
            let circle = world
                .create_body(crate::BodyDef::dynamic().position(c.x, c.y))
                .unwrap();
            let shape = carom_shapes::Circle::new(Vec2::ZERO, 0.25).unwrap();
            world.add_shape(circle, shape, material).unwrap();
        }
        world
    }

    #[test]
    fn a_pile_created_in_no_order_in_space_is_solved_with_the_same_bits_on_any_thread_count() {
        // The circles of a pile created in a scrambled order: once they
        // touch, each region holds circles from all over the pile and meets
        // every other region, so that step runs its stages on the calling
        // thread, and the solver then keeps the bodies in an order of its
        // own.
        let scrambled = || scrambled_pile(12_000);
        assert_same_bits_on_any_thread_count(scrambled, 60, |world| {
            let coloring = &world.solver.coloring;
            // Made once the regions were found tangled, and parting them.
            assert!(world.solver.order.is_some());
            assert!(coloring.region_ends.len() > 4);
            // Solved in that order, the pile still rests on the floor with
            // its circles barely overlapping (constraints that took the
            // wrong bodies' states would let them sink and fly apart).
            assert!(
                world.max_penetration() < 0.05,
                "{}",
                world.max_penetration()
            );
            let circles = world.bodies().filter(|b| b.kind() == BodyKind::Dynamic);
            let lowest = circles.map(|b| b.position().y).fold(f32::MAX, f32::min);
            assert!(lowest > 0.2, "{lowest}");
            assert!(
                coloring.region_speedup(2) >= stages::MIN_REGION_SPEEDUP,
                "regions by region colour ending at {:?}",
                coloring.region_color_ends
            );
        });
    }

    #[test]
    fn a_tangled_world_that_loses_bodies_orders_what_is_left() {
        // Removing bodies changes their number, which ends the order; what
        // is left is as tangled as before, so the solver orders it again.
        let run = |world: &mut crate::World| {
            for _ in 0..40 {
                world.step();
            }
            assert!(world.solver.order.is_some());
            let circles = world.bodies().filter(|b| b.kind() == BodyKind::Dynamic);
            let doomed: Vec<_> = circles.step_by(97).take(50).map(|b| b.handle()).collect();
            for body in doomed {
                world.remove_body(body).unwrap();
            }
            world.step();
            assert!(world.solver.order.is_none());
            for _ in 0..20 {
                world.step();
            }
        };
        let scrambled = || scrambled_pile(12_000);
        assert_same_bits_when_run_on_any_thread_count(scrambled, run, |world| {
            let order = world.solver.order.as_ref().expect("ordered again");
            assert_eq!(order.bodies(), world.body_count());
        });
    }

    #[test]
    fn a_pile_pushed_by_kinematic_posts_is_solved_with_the_same_bits_on_any_thread_count() {
        // Upright posts through the pile touch a circle of every row, so
        // they meet every region; they are the last bodies, so the last
        // block of each integration moves them. A thread that ran that
        // block early, or a region early beside it, would race on the
        // posts' states (see `stages`).
        let pile_and_posts = || {
            let mut world = Scene::circle_pile(12_000).build_world().unwrap();
            for k in 0..12 {
                let x = -110.0 + 20.0 * k as f32;
                let def = crate::BodyDef::kinematic()
                    .position(x, 0.0)
                    .velocity(0.5, 0.0);
                let post = world.create_body(def).unwrap();
                let shape = carom_shapes::Stadium::new(Vec2::ZERO, Vec2::new(0.0, 25.0), 0.1);
                let material = crate::Material::default();
                world.add_shape(post, shape.unwrap(), material).unwrap();
            }
            world
        };
        assert_same_bits_on_any_thread_count(pile_and_posts, 60, |world| {
            let solver = &world.solver;
            let last = (solver.states.len() - 2) / BODY_BLOCK;
            let marked: Vec<usize> = (0..solver.kinematic_blocks.len())
                .filter(|&k| solver.kinematic_blocks[k])
                .collect();
            assert_eq!(
                marked,
                vec![last],
                "only the posts' block holds kinematic bodies"
            );
            assert!(solver.coloring.region_ends.len() > 4);
        });
    }

    #[test]
    fn batches_prepare_like_single_constraints_bit_for_bit() {
        // A settling pile of circles and bouncy capsules: one- and two-point
        // constraints, full and padded batches, warm-started impulses, and
        // batches with no bouncy lane, some and all.
        let mut world = Scene::circle_pile(400).build_world().unwrap();
        let capsule =
            carom_shapes::Stadium::new(Vec2::new(-0.4, 0.0), Vec2::new(0.4, 0.0), 0.15).unwrap();
        for i in 0..40 {
            let x = -6.0 + 0.3 * i as f32;
            let def = crate::BodyDef::dynamic().position(x, 30.0 + (i % 5) as f32);
            let body = world.create_body(def).unwrap();
            let bouncy = crate::Material {
                restitution: 0.5,
                ..crate::Material::default()
            };
            world.add_shape(body, capsule, bouncy).unwrap();
        }
        for _ in 0..240 {
            world.step();
        }
        let settings = *world.settings();
        let mut solver = Solver::default();
        let _loaded = solver.load(&settings, &world.bodies, Threading::Pool, true);
        let mut scratch = SharedScratch::default();
        solver.color(world.contacts.ends(), &mut scratch, None);
        solver.group_batches();
        let view = PrepareView {
            contacts: world.contacts.as_slice(),
            ends: world.contacts.ends(),
            slot_of: None,
            masses: &solver.masses,
            states: &solver.states,
        };
        let null_body = (solver.states.len() - 1) as u32;
        let (still, bouncy) = check_batches(&solver.ones, &view, null_body);
        assert!(
            still > 0 && bouncy > 0,
            "{still} still and {bouncy} bouncy batches"
        );
        check_batches(&solver.twos, &view, null_body);
    }
}

//! What one block of a stage does: prepare or store a region's batches,
//! integrate or store a run of bodies, or run a constraint pass over a
//! region's groups.

use std::mem::MaybeUninit;

use crate::body::Body;
use crate::contacts::{Contact, PointImpulse};
use crate::graph;
use crate::sleep::Readiness;
#[cfg(target_arch = "x86_64")]
use crate::solver::avx;
use crate::solver::batch::{prepare_batch, run_batches, PrepareView};
use crate::solver::contact::WarmStart;
use crate::solver::integrate::{integrate_position, integrate_velocity, BodyMotion, BodyState};
use crate::solver::start::{keeps_start, Kept, StartPose};
use crate::solver::wide::{WideBounce, WideConstraint, WidePass};
use crate::solver::{load_state, store_body, Isa};

use super::{Executor, Pass, SetPtr, Stage, Work};

/// How many batches ahead the contacts of a batch are fetched into cache
/// while one is prepared or its impulses stored. Batches list contacts in
/// colour order, so the processor cannot foresee which it reads next; in a
/// large step they are not in cache. (Two, four and eight batches ahead
/// gained alike.)
const CONTACTS_AHEAD: usize = 4;

impl Executor<'_> {
    /// Runs block `block` of `stage`.
    ///
    /// # Safety
    /// No other thread may be running the same block, nor any block of
    /// another stage that moves one of the same dynamic bodies.
    pub(super) unsafe fn run_block(&self, stage: &Stage, block: usize) {
        let p = self.passes;
        let (begin, end) = stage.range(block);
        match stage.work {
            // SAFETY: blocks of a stage are disjoint (see above).
            Work::Prepare => unsafe { self.prepare(begin..end) },
            Work::StoreImpulses => unsafe { self.store_impulses(begin..end) },
            Work::StoreBodies => {
                for i in begin..end {
                    // Bodies kept in an order of their own are stored in
                    // no order of the bodies': each is asked for early.
                    if let Some(&body) = self.body_of.and_then(|order| order.get(i + BODIES_AHEAD))
                    {
                        prefetch_body(self.bodies.wrapping_add(body as usize));
                    }
                    // SAFETY: body blocks are disjoint, a shape belongs to
                    // one body, and nothing else reads or writes bodies,
                    // states or shapes in this stage.
                    unsafe { self.store_body(i) };
                }
            }
            Work::IntegrateVelocities => match self.isa {
                Isa::Portable => self.bodies(begin, end, |s, m| integrate_velocity(s, m, p.h)),
                // SAFETY: `Isa::Avx2` is only chosen when the processor has
                // AVX2, and body blocks are disjoint (see above).
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe {
                    avx::integrate_velocities(self.states, self.motions, begin..end, p.h);
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
                    avx::integrate_positions(self.states, self.motions, begin..end, limits, p.h);
                },
            },
            Work::Constraints { pass, region_color } => {
                let first = graph::run(self.region_color_ends, region_color).start;
                let regions = first + begin..first + end;
                match pass {
                    Pass::WarmStart => self.constraints(&WarmStart, regions),
                    Pass::Solve => self.constraints(p.solve, regions),
                    Pass::Relax => self.constraints(p.relax, regions),
                    Pass::Restitution => self.constraints(p.restitution, regions),
                }
            }
        }
    }

    /// The batches of one set that the `k`-th region of the by-region
    /// stages holds (see [`Executor::home_regions`]).
    fn batches_at<const N: usize>(&self, set: &SetPtr<N>, k: usize) -> std::ops::Range<usize> {
        let region = self.home_regions[k] as usize;
        set.batches_of(graph::run(self.region_ends, region))
    }

    /// Prepares the batches of the by-region stages' regions `regions`
    /// (see [`Executor::home_regions`]) into their slots.
    ///
    /// # Safety
    /// As for [`Executor::run_block`]; no other stage may be running.
    unsafe fn prepare(&self, regions: std::ops::Range<usize>) {
        // SAFETY: nothing writes the contacts or the states in this stage.
        let view = unsafe {
            PrepareView {
                contacts: std::slice::from_raw_parts(self.contacts, self.contact_count),
                ends: self.ends,
                slot_of: self.slot_of,
                masses: std::slice::from_raw_parts(self.masses, self.mass_count),
                states: std::slice::from_raw_parts(self.states.0, self.state_count),
            }
        };
        for k in regions {
            // SAFETY: the caller's guarantees; regions hold disjoint batches.
            unsafe {
                self.prepare_set(&view, &self.ones, self.batches_at(&self.ones, k));
                self.prepare_set(&view, &self.twos, self.batches_at(&self.twos, k));
            }
        }
    }

    /// [`Executor::prepare`] for batches `batches` of one set.
    unsafe fn prepare_set<const N: usize>(
        &self,
        view: &PrepareView,
        set: &SetPtr<N>,
        batches: std::ops::Range<usize>,
    ) {
        let null_body = (self.state_count - 1) as u32;
        let end = batches.end;
        for k in batches {
            if k + CONTACTS_AHEAD < end {
                prefetch_contacts(self.contacts, set.lanes(k + CONTACTS_AHEAD));
            }
            // SAFETY: slot `k` and its bounce and flag are this block's
            // alone, and only written here.
            unsafe {
                let slot = &mut *set.batches.add(k).cast::<MaybeUninit<WideConstraint<N>>>();
                let bounce = &mut *set.bounces.add(k).cast::<MaybeUninit<WideBounce<N>>>();
                prepare_batch(view, set.lanes(k), null_body, self.isa, slot, bounce);
                *set.bouncy.add(k) = bounce.assume_init_ref().is_bouncy();
            }
        }
    }

    /// Copies the impulses of the batches of the by-region stages' regions
    /// `regions` into their contacts.
    ///
    /// # Safety
    /// As for [`Executor::run_block`]; the batches must have been prepared.
    unsafe fn store_impulses(&self, regions: std::ops::Range<usize>) {
        for k in regions {
            // SAFETY: the caller's guarantees; each contact is one lane's.
            unsafe {
                self.store_set(&self.ones, self.batches_at(&self.ones, k));
                self.store_set(&self.twos, self.batches_at(&self.twos, k));
            }
        }
    }

    /// [`Executor::store_impulses`] for batches `batches` of one set.
    unsafe fn store_set<const N: usize>(&self, set: &SetPtr<N>, batches: std::ops::Range<usize>) {
        let end = batches.end;
        for k in batches {
            if k + CONTACTS_AHEAD < end {
                prefetch_contacts(self.contacts, set.lanes(k + CONTACTS_AHEAD));
            }
            // SAFETY: prepared, and only read in this stage.
            let batch = unsafe { &*set.batches.add(k) };
            for point in 0..N {
                let (normal, tangent) = batch.impulses(point);
                for (lane, &contact) in set.lanes(k).iter().enumerate() {
                    let impulse = PointImpulse {
                        normal: normal[lane],
                        tangent: tangent[lane],
                    };
                    // SAFETY: a contact belongs to one lane of one batch.
                    unsafe { (*self.contacts.add(contact as usize)).impulses[point] = impulse };
                }
            }
        }
    }

    /// Stores the motion of the body kept in slot `slot`, keeping its start
    /// pose if continuous collision will need it.
    ///
    /// # Safety
    /// As for [`Executor::run_block`]: no other thread may touch the slot
    /// or its body.
    unsafe fn store_body(&self, slot: usize) {
        let i = self.body_of.map_or(slot, |order| order[slot] as usize);
        // SAFETY: the caller's guarantees.
        let body = unsafe { &mut *self.bodies.add(i) };
        let start = StartPose::of(body);
        // SAFETY: as above; the slot's state and mass are this thread's,
        // like the body.
        let (state, mass) = unsafe {
            (
                &mut *self.states.at(slot as u32),
                &mut *self.masses.add(slot),
            )
        };
        if store_body(body, state) {
            // What the next step loads of the body, unless something else
            // changes it first (see `Solver::load`).
            *state = load_state(body);
            mass.center = body.center;
        }
        let kept = keeps_start(body, &start);
        if let Some((timer, readiness)) = self.rest {
            // A body fast enough to be swept may yet be moved back, so its
            // timer waits for that (see `Islands::fall_asleep`).
            let noted = match kept {
                Kept::Fast => Readiness::Moving,
                _ => timer.advance(body),
            };
            // SAFETY: body `i`'s slot is this thread's, like the body, and
            // lies in the slots (one per body, checked in `run_stages`).
            unsafe { *readiness.add(i) = noted };
        }
        // SAFETY: body `i`'s entries are this thread's, like the body.
        unsafe {
            *self.kept.add(i) = kept;
            if kept != Kept::No {
                (*self.start_poses.add(i)).write(start);
            }
        }
    }

    /// Runs `f` on the moving bodies among `begin..end`.
    unsafe fn bodies(&self, begin: usize, end: usize, f: impl Fn(&mut BodyState, &BodyMotion)) {
        for i in begin..end {
            let motion = &self.motions[i];
            if motion.moves {
                // SAFETY: body blocks are disjoint (see `run_block`).
                f(unsafe { &mut *self.states.at(i as u32) }, motion);
            }
        }
    }

    /// Runs `pass` on regions `regions` (in run order), one after the
    /// other, each region's groups in turn, a group's one-point batches
    /// before its two-point ones.
    unsafe fn constraints<P: WidePass>(&self, pass: &P, regions: std::ops::Range<usize>) {
        for region in regions {
            for group in graph::run(self.region_ends, region) {
                // SAFETY: the region belongs to this block alone (see
                // `run_block`).
                unsafe {
                    let batches = self.ones.batches(group);
                    run_batches(batches, pass, self.states, self.dynamic, self.isa);
                    let batches = self.twos.batches(group);
                    run_batches(batches, pass, self.states, self.dynamic, self.isa);
                }
            }
        }
    }
}

/// Slots ahead of the one being stored whose body is asked for (see
/// [`prefetch_body`]).
const BODIES_AHEAD: usize = 8;

// So a body spans at most three cache lines (see `prefetch_body`).
const _: () = assert!(std::mem::size_of::<Body>() <= 2 * 64 + 1);

/// Asks for `body` to be brought into cache, where the processor has a way
/// to ask; only a hint, so the results cannot change.
#[inline(always)]
fn prefetch_body(body: *const Body) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // A body spans at most three cache lines: those of its first byte,
        // of the byte a line further, and of its last byte.
        let first = body.cast::<i8>();
        let last = first.wrapping_add(std::mem::size_of::<Body>() - 1);
        // SAFETY: a prefetch reads nothing and never faults.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(64));
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = body;
}

/// Asks for the contacts `lanes` to be brought into cache, where the
/// processor has a way to ask; only a hint, so the results cannot change.
#[inline(always)]
fn prefetch_contacts(contacts: *const Contact, lanes: &[u32]) {
    #[cfg(target_arch = "x86_64")]
    for &c in lanes {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // A contact spans at most two cache lines: its first byte's and its
        // last byte's.
        let first = contacts.wrapping_add(c as usize).cast::<i8>();
        let last = first.wrapping_add(std::mem::size_of::<Contact>() - 1);
        // SAFETY: a prefetch reads nothing and never faults.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (contacts, lanes);
}

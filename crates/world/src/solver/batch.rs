//! The constraints of each point count in SIMD batches: their lists by
//! colour and region, the batches planned from them, and the passes that
//! prepare and run them eight lanes at a time.

use std::mem::MaybeUninit;

use crate::buffer::{Room, SharedScratch};
use crate::contacts::{Contact, ContactEnds};

#[cfg(target_arch = "x86_64")]
use super::avx;
#[cfg(test)]
use super::contact::{relative_velocity, ConstraintPoint, ContactConstraint};
use super::integrate::BodyState;
use super::wide::{BatchInput, WideBounce, WideConstraint, WideLane, WidePass, LANES};
use super::{BodyMass, Isa, StatesPtr};

/// The constraints of one point count, in SIMD batches grouped by colour
/// within each region (see [`Coloring`](crate::graph::Coloring)).
#[derive(Debug, Default)]
pub(super) struct ConstraintSet<const N: usize> {
    /// The contact of each constraint, by group (listed by colouring).
    pub(super) sources: Vec<u32>,
    /// Per group: the end of its run in `sources`, and whether it is an
    /// overflow set.
    pub(super) group_ends: Vec<(u32, bool)>,
    /// Per batch: the `sources` its lanes come from (batches of eight, in
    /// the order of `sources`).
    pub(super) batch_lanes: Vec<(usize, usize)>,
    /// Per group: its range of the set's batches.
    pub(super) group_batches: Vec<(u32, u32)>,
}

/// Slots for a step's constraint batches, one- and two-point, to be
/// prepared in place.
pub(super) struct BatchSlots<'a> {
    pub(super) ones: SetSlots<'a, 1>,
    pub(super) twos: SetSlots<'a, 2>,
}

/// Slots for one set's batches: per batch, the batch, its lanes that only
/// bouncing reads (see [`WideBounce`]), and whether any lane can bounce,
/// so that the passes need not read those lanes to find out.
pub(super) struct SetSlots<'a, const N: usize> {
    pub(super) batches: &'a mut [MaybeUninit<WideConstraint<N>>],
    pub(super) bounces: &'a mut [MaybeUninit<WideBounce<N>>],
    pub(super) bouncy: &'a mut [MaybeUninit<bool>],
}

impl<'a> BatchSlots<'a> {
    /// Slots for `ones` one-point and `twos` two-point batches, in memory
    /// lent by `scratch`.
    pub(super) fn lend(scratch: &'a mut SharedScratch, ones: usize, twos: usize) -> BatchSlots<'a> {
        fn bytes<const N: usize>(count: usize) -> usize {
            Room::bytes_for::<WideConstraint<N>>(count)
                + Room::bytes_for::<WideBounce<N>>(count)
                + Room::bytes_for::<bool>(count)
        }
        fn take<'a, const N: usize>(room: &mut Room<'a>, count: usize) -> SetSlots<'a, N> {
            let sized = "the room was sized for the batches";
            SetSlots {
                batches: room.take(count).expect(sized),
                bounces: room.take(count).expect(sized),
                bouncy: room.take(count).expect(sized),
            }
        }
        let mut room = scratch.room(bytes::<1>(ones) + bytes::<2>(twos));
        let ones = take(&mut room, ones);
        BatchSlots {
            ones,
            twos: take(&mut room, twos),
        }
    }
}

impl<const N: usize> ConstraintSet<N> {
    /// How many batches the constraints take.
    pub(super) fn batch_count(&self) -> usize {
        self.batch_lanes.len()
    }

    /// Cuts each group's constraints into batches of eight (a group's last
    /// batch may have fewer). An overflow set goes one constraint per
    /// batch: its constraints may share a body, and lanes that did would
    /// each write the body back over the others' impulses.
    pub(super) fn plan_batches(&mut self) {
        self.batch_lanes.clear();
        self.group_batches.clear();
        let mut begin = 0;
        for &(end, overflow) in &self.group_ends {
            let end = end as usize;
            let first = self.batch_lanes.len() as u32;
            let lanes = if overflow { 1 } else { LANES };
            self.batch_lanes.extend(
                (begin..end)
                    .step_by(lanes)
                    .map(|start| (start, (start + lanes).min(end))),
            );
            self.group_batches
                .push((first, self.batch_lanes.len() as u32));
            begin = end;
        }
    }
}

/// Runs `pass` over `batches` in order, compiled for `isa`.
pub(super) fn run_batches<const N: usize, P: WidePass>(
    batches: BatchRun<N>,
    pass: &P,
    ptr: StatesPtr,
    dynamic: &[bool],
    isa: Isa,
) {
    match isa {
        Isa::Portable => run_batches_with(
            batches.batches,
            batches.bounces,
            batches.bouncy,
            pass,
            ptr,
            dynamic,
        ),
        // SAFETY: `Isa::Avx2` is only chosen when the processor has AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { run_batches_avx2(batches, pass, ptr, dynamic) },
    }
}

/// A run of batches, with their bounce lanes and flags (see
/// [`SetSlots`]).
pub(super) struct BatchRun<'a, const N: usize> {
    pub(super) batches: &'a mut [WideConstraint<N>],
    pub(super) bounces: &'a mut [WideBounce<N>],
    pub(super) bouncy: &'a [bool],
}

/// [`run_batches_with`] compiled for processors with AVX2, on 256-bit lanes.
///
/// # Safety
/// The processor must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_batches_avx2<const N: usize, P: WidePass>(
    run: BatchRun<N>,
    pass: &P,
    ptr: StatesPtr,
    dynamic: &[bool],
) {
    avx::align_stack_frame();
    let (batches, bounces) = (avx::as_avx(run.batches), avx::as_avx(run.bounces));
    run_batches_with(batches, bounces, run.bouncy, pass, ptr, dynamic);
}

/// Gathers each batch's bodies, runs `pass`, and scatters the velocities;
/// skips the batches the pass would leave alone.
#[inline(always)]
fn run_batches_with<const N: usize, P: WidePass, L: WideLane>(
    batches: &mut [WideConstraint<N, L>],
    bounces: &mut [WideBounce<N, L>],
    bouncy: &[bool],
    pass: &P,
    ptr: StatesPtr,
    dynamic: &[bool],
) {
    for ((c, bounce), &bouncy) in batches.iter_mut().zip(bounces).zip(bouncy) {
        if pass.leaves_alone(bouncy) {
            continue;
        }
        // SAFETY: `a` and `b` index `states`, whose buffer outlives this
        // call; within a colour each dynamic state belongs to one lane of
        // one batch, and padding lanes and immovable bodies are only read,
        // never written (see `StatesPtr`).
        unsafe {
            let mut a = L::gather(ptr, &c.a);
            let mut b = L::gather(ptr, &c.b);
            pass.run_wide(c, bounce, bouncy, &mut a, &mut b);
            L::scatter(ptr, &c.a, dynamic, &a);
            L::scatter(ptr, &c.b, dynamic, &b);
        }
    }
}

/// Prepares the constraints of `contacts` (at most eight) as one batch into
/// `out` and its bounce lanes into `bounce`, on the lanes `isa` offers. The
/// batch (over half a kilobyte) is written where it is kept rather than
/// returned, which would copy it.
#[inline]
pub(super) fn prepare_batch<const N: usize>(
    view: &PrepareView,
    contacts: &[u32],
    null_body: u32,
    isa: Isa,
    out: &mut MaybeUninit<WideConstraint<N>>,
    bounce: &mut MaybeUninit<WideBounce<N>>,
) {
    match isa {
        Isa::Portable => {
            let (batch, bounced) =
                WideConstraint::prepare(&view.batch_input(contacts, null_body).lanes());
            out.write(batch);
            bounce.write(bounced);
        }
        // SAFETY: `Isa::Avx2` is only chosen when the processor has AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { prepare_batch_avx2(view, contacts, null_body, out, bounce) },
    }
}

/// [`prepare_batch`] on 256-bit lanes, reading the contacts, masses and
/// velocities with transposed loads.
///
/// # Safety
/// The processor must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn prepare_batch_avx2<const N: usize>(
    view: &PrepareView,
    contacts: &[u32],
    null_body: u32,
    out: &mut MaybeUninit<WideConstraint<N>>,
    bounce: &mut MaybeUninit<WideBounce<N>>,
) {
    avx::align_stack_frame();
    // SAFETY: the caller checked the processor.
    let lanes = unsafe { avx::prepare_lanes::<N>(view, contacts, null_body) };
    let (batch, bounced) = WideConstraint::prepare(&lanes);
    out.write(avx::to_storage(batch));
    bounce.write(avx::to_storage(bounced));
}

/// What preparing constraints reads.
pub(super) struct PrepareView<'a> {
    pub(super) contacts: &'a [Contact],
    /// Per contact: its bodies.
    pub(super) ends: &'a [ContactEnds],
    /// Per body: its slot in `masses` and `states`, when not its index.
    pub(super) slot_of: Option<&'a [u32]>,
    pub(super) masses: &'a [BodyMass],
    pub(super) states: &'a [BodyState],
}

impl PrepareView<'_> {
    /// The slots of contact `k`'s bodies, A's first.
    #[inline(always)]
    pub(super) fn slots(&self, k: usize) -> [u32; 2] {
        let bodies = self.ends[k].bodies();
        match self.slot_of {
            Some(slots) => bodies.map(|b| slots[b as usize]),
            None => bodies,
        }
    }

    /// Gathers what preparing the constraints of `contacts` (at most eight)
    /// reads into lanes.
    pub(super) fn batch_input<const N: usize>(
        &self,
        contacts: &[u32],
        null_body: u32,
    ) -> BatchInput<N> {
        let mut input = BatchInput::<N>::empty(null_body);
        for (lane, &k) in contacts.iter().enumerate() {
            let contact = &self.contacts[k as usize];
            let [body_a, body_b] = self.slots(k as usize);
            let (ia, ib) = (body_a as usize, body_b as usize);
            let (a, b) = (&self.masses[ia], &self.masses[ib]);
            let (sa, sb) = (&self.states[ia], &self.states[ib]);
            input.a[lane] = body_a;
            input.b[lane] = body_b;
            input.inv_mass_a[lane] = a.inv_mass;
            input.inv_inertia_a[lane] = a.inv_inertia;
            input.inv_mass_b[lane] = b.inv_mass;
            input.inv_inertia_b[lane] = b.inv_inertia;
            input.center_a[0][lane] = a.center.x;
            input.center_a[1][lane] = a.center.y;
            input.center_b[0][lane] = b.center.x;
            input.center_b[1][lane] = b.center.y;
            input.velocity_a[0][lane] = sa.v.x;
            input.velocity_a[1][lane] = sa.v.y;
            input.velocity_a[2][lane] = sa.w;
            input.velocity_b[0][lane] = sb.v.x;
            input.velocity_b[1][lane] = sb.v.y;
            input.velocity_b[2][lane] = sb.w;
            input.normal[0][lane] = contact.manifold.normal.x;
            input.normal[1][lane] = contact.manifold.normal.y;
            input.friction[lane] = contact.friction;
            input.restitution[lane] = contact.restitution;
            for (point, (mp, warm)) in input
                .points
                .iter_mut()
                .zip(contact.manifold.points().iter().zip(&contact.impulses))
            {
                point.position[0][lane] = mp.point.x;
                point.position[1][lane] = mp.point.y;
                point.separation[lane] = mp.separation;
                point.normal_impulse[lane] = warm.normal;
                point.tangent_impulse[lane] = warm.tangent;
            }
        }
        input
    }

    /// Lever arms, effective masses, warm-start impulses and start-of-step
    /// normal velocities of one contact with `N` points.
    #[cfg(test)]
    pub(super) fn prepare_one<const N: usize>(&self, k: usize) -> ContactConstraint<N> {
        let contact = &self.contacts[k];
        let [body_a, body_b] = self.slots(k);
        let (ia, ib) = (body_a as usize, body_b as usize);
        let (a, b) = (&self.masses[ia], &self.masses[ib]);
        let n = contact.manifold.normal;
        let mut c = ContactConstraint::<N> {
            a: body_a,
            b: body_b,
            inv_mass_a: a.inv_mass,
            inv_inertia_a: a.inv_inertia,
            inv_mass_b: b.inv_mass,
            inv_inertia_b: b.inv_inertia,
            normal: n,
            friction: contact.friction,
            restitution: contact.restitution,
            ..ContactConstraint::default()
        };
        for (k, mp) in contact.manifold.points().iter().take(N).enumerate() {
            let ra = mp.point - a.center;
            let rb = mp.point - b.center;
            let warm = contact.impulses[k];
            // Only a point that can bounce keeps its normal velocity.
            let vn = if contact.restitution > 0.0 {
                relative_velocity(&self.states[ia], &self.states[ib], ra, rb).dot(n)
            } else {
                0.0
            };
            c.points[k] = ConstraintPoint {
                base_separation: mp.separation - (rb - ra).dot(n),
                normal_impulse: warm.normal,
                tangent_impulse: warm.tangent,
                approach_speed: vn,
                ..ConstraintPoint::at(&c, ra, rb)
            };
            if warm.normal > 0.0 {
                c.mark_approach_recorded(k);
            }
        }
        c
    }
}

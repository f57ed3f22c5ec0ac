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
//! Constraints are grouped by graph colour ([`crate::graph`]); within a
//! colour no two constraints share a dynamic body, so a colour is solved in
//! parallel over fixed chunks and the result is bit-identical for any number
//! of threads.

mod contact;
mod integrate;

use carom_shapes::{Rot, Transform};
use glam::Vec2;
use rayon::prelude::*;

use crate::body::{Body, BodyKind};
use crate::contacts::{ContactSet, PointImpulse};
use crate::graph::Coloring;
use crate::settings::WorldSettings;
use contact::{
    apply_restitution, effective_mass, relative_velocity, solve, warm_start, ConstraintPoint,
    ContactConstraint, Softness, SolveContext,
};
use integrate::{integrate_position, integrate_velocity, BodyMotion, BodyState, MotionLimits};

/// Constraints handed to one task within a colour.
const SOLVE_CHUNK: usize = 128;
/// Bodies handed to one task when integrating.
const BODY_CHUNK: usize = 512;

/// Where a body was at the start of the step (for continuous collision).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StartPose {
    pub center: Vec2,
    pub angle: f32,
    pub rotation: Rot,
    pub linear_velocity: Vec2,
    pub angular_velocity: f32,
}

/// What a solver step reports.
pub(crate) struct Solved<'a> {
    pub colors: usize,
    pub start_poses: &'a [StartPose],
}

/// The solver's buffers, kept between steps so a step does not allocate.
#[derive(Debug, Default)]
pub(crate) struct Solver {
    states: Vec<BodyState>,
    motions: Vec<BodyMotion>,
    dynamic: Vec<bool>,
    constraints: Vec<ContactConstraint>,
    coloring: Coloring,
    start_poses: Vec<StartPose>,
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
    /// Advances every body by one step of `settings.dt`, resolving contacts.
    pub fn step(
        &mut self,
        settings: &WorldSettings,
        bodies: &mut [Body],
        contacts: &mut ContactSet,
    ) -> Solved<'_> {
        let substeps = settings.substeps;
        let h = settings.dt / substeps as f32;
        self.load_bodies(settings, bodies, h);
        self.color(contacts);
        self.prepare(settings, bodies, contacts, h);
        let ctx = SolveContext {
            inv_h: 1.0 / h,
            push_speed: settings.contact_push_speed,
            restitution_threshold: settings.restitution_threshold,
        };
        let limits = MotionLimits {
            max_linear_speed: settings.max_linear_speed,
            max_rotation: 0.25 * std::f32::consts::PI,
        };
        for _ in 0..substeps {
            self.integrate_velocities(h);
            self.for_each_constraint(|c, a, b| warm_start(c, a, b));
            self.for_each_constraint(|c, a, b| solve(c, a, b, &ctx, true));
            self.integrate_positions(&limits, h);
            self.for_each_constraint(|c, a, b| solve(c, a, b, &ctx, false));
        }
        self.for_each_constraint(|c, a, b| apply_restitution(c, a, b, &ctx));
        self.store_impulses(contacts);
        self.store_bodies(bodies);
        Solved {
            colors: self.coloring.color_count(),
            start_poses: &self.start_poses,
        }
    }

    /// Copies body velocities into the solver state and records start poses.
    fn load_bodies(&mut self, settings: &WorldSettings, bodies: &[Body], h: f32) {
        self.states.clear();
        self.motions.clear();
        self.dynamic.clear();
        self.start_poses.clear();
        for b in bodies {
            let moves = b.kind != BodyKind::Static;
            let dynamic = b.kind == BodyKind::Dynamic;
            self.states.push(BodyState {
                v: if moves { b.linear_velocity } else { Vec2::ZERO },
                w: if moves { b.angular_velocity } else { 0.0 },
                ..BodyState::AT_REST
            });
            self.motions.push(BodyMotion {
                gravity: if dynamic {
                    b.gravity_scale * settings.gravity
                } else {
                    Vec2::ZERO
                },
                linear_damping: 1.0 / (1.0 + h * b.linear_damping),
                angular_damping: 1.0 / (1.0 + h * b.angular_damping),
                moves,
            });
            self.dynamic.push(dynamic);
            self.start_poses.push(StartPose {
                center: b.center,
                angle: b.angle,
                rotation: b.transform.rotation,
                linear_velocity: b.linear_velocity,
                angular_velocity: b.angular_velocity,
            });
        }
    }

    fn color(&mut self, contacts: &ContactSet) {
        let dynamic = &self.dynamic;
        let ends = |i: u32| dynamic[i as usize].then_some(i);
        self.coloring.build(
            dynamic.len(),
            contacts.iter().map(|c| [ends(c.body_a), ends(c.body_b)]),
        );
    }

    /// Builds one constraint per contact, in colour order.
    fn prepare(
        &mut self,
        settings: &WorldSettings,
        bodies: &[Body],
        contacts: &ContactSet,
        h: f32,
    ) {
        // Stiffness is capped at a quarter of the substep rate for stability;
        // contacts with an immovable body get twice the frequency, since only
        // one body moves to resolve them.
        let hertz = settings.contact_hertz.min(0.25 / h);
        let zeta = settings.contact_damping_ratio;
        let soft = Softness::new(hertz, zeta, h);
        let stiff = Softness::new(2.0 * hertz, zeta, h);
        let order = &self.coloring.order;
        let all = contacts.as_slice();
        let states = &self.states;
        let dynamic = &self.dynamic;
        self.constraints.clear();
        self.constraints
            .resize(order.len(), ContactConstraint::default());
        self.constraints
            .par_chunks_mut(SOLVE_CHUNK)
            .zip(order.par_chunks(SOLVE_CHUNK))
            .for_each(|(out, indices)| {
                for (c, &k) in out.iter_mut().zip(indices) {
                    let contact = &all[k as usize];
                    let (a, b) = (contact.body_a as usize, contact.body_b as usize);
                    let softness = if dynamic[a] && dynamic[b] {
                        soft
                    } else {
                        stiff
                    };
                    *c = prepare_constraint(k, contact, &bodies[a], &bodies[b], softness);
                    let (sa, sb) = (&states[a], &states[b]);
                    for p in &mut c.points[..c.count] {
                        p.approach_speed =
                            relative_velocity(sa, sb, p.anchor_a, p.anchor_b).dot(c.normal);
                    }
                }
            });
    }

    /// Runs `f` on every constraint with its two body states, colour by
    /// colour, each colour in parallel; the overflow set runs last, in order.
    fn for_each_constraint<F>(&mut self, f: F)
    where
        F: Fn(&mut ContactConstraint, &mut BodyState, &mut BodyState) + Sync,
    {
        let ptr = StatesPtr(self.states.as_mut_ptr());
        let dynamic = &self.dynamic;
        let run = |c: &mut ContactConstraint| {
            // SAFETY: `a` and `b` index `states`, whose buffer outlives this
            // call; within a colour each dynamic state is touched by one
            // constraint only, and non-dynamic states are copied, never
            // written (see `StatesPtr`).
            unsafe {
                let pa = ptr.at(c.a);
                let pb = ptr.at(c.b);
                let mut sa = *pa;
                let mut sb = *pb;
                f(c, &mut sa, &mut sb);
                if dynamic[c.a as usize] {
                    *pa = sa;
                }
                if dynamic[c.b as usize] {
                    *pb = sb;
                }
            }
        };
        let colors = self.coloring.color_count();
        for (i, &(begin, end)) in self.coloring.ranges.iter().enumerate() {
            let slice = &mut self.constraints[begin as usize..end as usize];
            if i < colors && slice.len() > SOLVE_CHUNK {
                slice
                    .par_chunks_mut(SOLVE_CHUNK)
                    .for_each(|chunk| chunk.iter_mut().for_each(run));
            } else {
                slice.iter_mut().for_each(run);
            }
        }
    }

    fn integrate_velocities(&mut self, h: f32) {
        self.states
            .par_chunks_mut(BODY_CHUNK)
            .zip(self.motions.par_chunks(BODY_CHUNK))
            .for_each(|(states, motions)| {
                for (s, m) in states.iter_mut().zip(motions) {
                    if m.moves {
                        integrate_velocity(s, m, h);
                    }
                }
            });
    }

    fn integrate_positions(&mut self, limits: &MotionLimits, h: f32) {
        self.states
            .par_chunks_mut(BODY_CHUNK)
            .zip(self.motions.par_chunks(BODY_CHUNK))
            .for_each(|(states, motions)| {
                for (s, m) in states.iter_mut().zip(motions) {
                    if m.moves {
                        integrate_position(s, limits, h);
                    }
                }
            });
    }

    fn store_impulses(&self, contacts: &mut ContactSet) {
        let all = contacts.as_mut_slice();
        for c in &self.constraints {
            let impulses = &mut all[c.contact as usize].impulses;
            for (k, p) in c.points[..c.count].iter().enumerate() {
                impulses[k] = PointImpulse {
                    normal: p.normal_impulse,
                    tangent: p.tangent_impulse,
                };
            }
        }
    }

    /// Writes the step's motion back into the bodies.
    fn store_bodies(&self, bodies: &mut [Body]) {
        bodies
            .par_chunks_mut(BODY_CHUNK)
            .zip(self.states.par_chunks(BODY_CHUNK))
            .for_each(|(bodies, states)| {
                for (b, s) in bodies.iter_mut().zip(states) {
                    if b.kind == BodyKind::Static {
                        continue;
                    }
                    b.linear_velocity = s.v;
                    b.angular_velocity = s.w;
                    b.center += s.dp;
                    b.angle += s.da;
                    let q = s.dq.mul(b.transform.rotation);
                    set_pose(b, q);
                }
            });
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

/// Anchors, effective masses and warm-start impulses of one contact.
fn prepare_constraint(
    index: u32,
    contact: &crate::contacts::Contact,
    a: &Body,
    b: &Body,
    softness: Softness,
) -> ContactConstraint {
    let n = contact.manifold.normal;
    let mut c = ContactConstraint {
        contact: index,
        a: contact.body_a,
        b: contact.body_b,
        inv_mass_a: a.inv_mass,
        inv_inertia_a: a.inv_inertia,
        inv_mass_b: b.inv_mass,
        inv_inertia_b: b.inv_inertia,
        normal: n,
        friction: contact.friction,
        restitution: contact.restitution,
        softness,
        count: contact.manifold.count,
        points: [ConstraintPoint::default(); 2],
    };
    let t = Vec2::new(n.y, -n.x);
    for (k, mp) in contact.manifold.points().iter().enumerate() {
        let ra = mp.point - a.center;
        let rb = mp.point - b.center;
        let warm = contact.impulses[k];
        c.points[k] = ConstraintPoint {
            anchor_a: ra,
            anchor_b: rb,
            base_separation: mp.separation - (rb - ra).dot(n),
            normal_mass: effective_mass(&c, ra, rb, n),
            tangent_mass: effective_mass(&c, ra, rb, t),
            normal_impulse: warm.normal,
            tangent_impulse: warm.tangent,
            max_normal_impulse: 0.0,
            approach_speed: 0.0,
            approach_recorded: warm.normal > 0.0,
        };
    }
    c
}

//! The contact cache: one manifold per touching pair of shapes, with the
//! impulses of the last step kept for warm starting.
//!
//! Each step the broadphase hands over candidate pairs sorted by
//! `(shape a, shape b)`. Their manifolds are computed in parallel (fixed
//! chunks, so the result never depends on the thread count) and matched with
//! last step's contacts, also sorted, by a linear merge: no hashing. Within a
//! pair, points are matched by their feature id.
//!
//! Contacts among bodies that cannot move this step (sleeping, static or
//! resting kinematic) are not recomputed: the broadphase does not report
//! their pairs, and they are carried over unchanged, merged into the sorted
//! list. A new contact between a moving body and a sleeping one asks for the
//! sleeping body's island to wake.

use carom_narrowphase::{collide, ContactManifold, FeatureId};
use rayon::prelude::*;

use crate::body::{Body, Material};
use crate::broadphase::Pair;
use crate::collider::Collider;

/// Pairs handed to one task when computing manifolds.
const MANIFOLD_CHUNK: usize = 256;

/// Impulses a contact point accumulated, kept from step to step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct PointImpulse {
    /// Normal impulse, N·s, ≥ 0.
    pub normal: f32,
    /// Friction impulse, N·s.
    pub tangent: f32,
}

/// A touching pair of shapes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Contact {
    pub shape_a: u32,
    pub shape_b: u32,
    pub body_a: u32,
    pub body_b: u32,
    pub manifold: ContactManifold,
    pub impulses: [PointImpulse; 2],
    pub friction: f32,
    pub restitution: f32,
}

impl Contact {
    #[inline]
    fn key(&self) -> u64 {
        ((self.shape_a as u64) << 32) | self.shape_b as u64
    }
}

/// All contacts of the last step, sorted by shape pair.
#[derive(Debug, Default)]
pub(crate) struct ContactSet {
    contacts: Vec<Contact>,
    /// Last step's contacts among bodies that cannot move, kept aside while
    /// `contacts` is rebuilt.
    frozen: Vec<Contact>,
    /// Per chunk of pairs: its contacts and the sleeping bodies they touch.
    chunks: Vec<(Vec<Contact>, Vec<u32>)>,
    /// Sleeping bodies that a moving body touched this step.
    to_wake: Vec<u32>,
}

impl ContactSet {
    /// Forgets every contact (and so every warm-start impulse).
    pub fn clear(&mut self) {
        self.contacts.clear();
    }

    pub fn len(&self) -> usize {
        self.contacts.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Contact> {
        self.contacts.iter()
    }

    pub fn as_mut_slice(&mut self) -> &mut [Contact] {
        &mut self.contacts
    }

    pub fn as_slice(&self) -> &[Contact] {
        &self.contacts
    }

    /// Whether shapes `a` and `b` (in broadphase pair order) have a contact
    /// this step. The list is sorted by pair, so this is a binary search.
    pub fn contains_pair(&self, a: u32, b: u32) -> bool {
        let key = ((a as u64) << 32) | b as u64;
        self.contacts
            .binary_search_by_key(&key, Contact::key)
            .is_ok()
    }

    /// Contact points, speculative ones included.
    pub fn point_count(&self) -> usize {
        self.contacts.iter().map(|c| c.manifold.count).sum()
    }

    /// The deepest overlap among all points, ≥ 0.
    pub fn max_penetration(&self) -> f32 {
        self.contacts
            .iter()
            .flat_map(|c| c.manifold.points())
            .map(|p| -p.separation)
            .fold(0.0, f32::max)
    }

    /// Sleeping bodies touched by a moving body in the last update, in
    /// contact order.
    pub fn to_wake(&self) -> &[u32] {
        &self.to_wake
    }

    /// Recomputes the manifolds of `pairs` and carries over the impulses of
    /// points that persist. With `any_sleeping`, last step's contacts among
    /// bodies that cannot move are kept as they were.
    pub fn update(
        &mut self,
        pairs: &[Pair],
        bodies: &[Body],
        colliders: &[Collider],
        margin: f32,
        dt: f32,
        any_sleeping: bool,
    ) {
        let chunks = pairs.len().div_ceil(MANIFOLD_CHUNK);
        self.chunks.resize_with(chunks, Default::default);
        let previous = &self.contacts;
        self.chunks
            .par_iter_mut()
            .zip(pairs.par_chunks(MANIFOLD_CHUNK))
            .for_each(|((out, wake), pairs)| {
                out.clear();
                wake.clear();
                out.extend(
                    pairs
                        .iter()
                        .filter_map(|&pair| new_contact(pair, bodies, colliders, margin, dt)),
                );
                warm_start_from(out, previous);
                if any_sleeping {
                    wake.extend(out.iter().flat_map(|c| sleeping_side(c, bodies)));
                }
            });
        // The new contacts replace the old in place (one list, not two, is
        // kept between steps); the frozen ones are set aside first.
        self.frozen.clear();
        if any_sleeping {
            let frozen = self.contacts.iter().filter(|c| is_frozen(c, bodies));
            self.frozen.extend(frozen);
        }
        self.contacts.clear();
        self.to_wake.clear();
        let mut frozen = self.frozen.iter().copied().peekable();
        for (chunk, wake) in &self.chunks[..chunks] {
            if !any_sleeping {
                self.contacts.extend_from_slice(chunk);
                continue;
            }
            for c in chunk {
                while let Some(f) = frozen.next_if(|f| f.key() < c.key()) {
                    self.contacts.push(f);
                }
                self.contacts.push(*c);
            }
            self.to_wake.extend_from_slice(wake);
        }
        self.contacts.extend(frozen);
    }
}

/// A contact neither of whose bodies can move this step.
fn is_frozen(contact: &Contact, bodies: &[Body]) -> bool {
    !bodies[contact.body_a as usize].is_moving() && !bodies[contact.body_b as usize].is_moving()
}

/// The sleeping body of a contact between a moving and a sleeping body.
fn sleeping_side(contact: &Contact, bodies: &[Body]) -> Option<u32> {
    let (a, b) = (
        &bodies[contact.body_a as usize],
        &bodies[contact.body_b as usize],
    );
    if a.is_sleeping() && b.is_moving() {
        Some(contact.body_a)
    } else if b.is_sleeping() && a.is_moving() {
        Some(contact.body_b)
    } else {
        None
    }
}

/// The contact of one pair, or `None` when no point needs a constraint.
///
/// A point is kept when its gap could close within the step: `s ≤ margin +
/// (|v_A(p)| + |v_B(p)|)·dt`, with the velocities of both bodies at the
/// point. Using speeds rather than the current approach velocity matters
/// in a crowd: two balls falling side by side do not approach, but if the
/// lower one strikes a pile and stops mid-step the upper one runs into it,
/// and only a constraint that already exists can catch that. Points that
/// never close apply no impulse (a speculative point pushes only when the
/// bodies would pass contact within the substep), so extra ones cost solver
/// time, not accuracy. The manifold is first computed with a margin grown by
/// a bound on both bodies' motion, then each point is tested.
fn new_contact(
    pair: Pair,
    bodies: &[Body],
    colliders: &[Collider],
    margin: f32,
    dt: f32,
) -> Option<Contact> {
    let ca = &colliders[pair.a as usize];
    let cb = &colliders[pair.b as usize];
    let (ba, bb) = (&bodies[ca.body as usize], &bodies[cb.body as usize]);
    let reach = margin + ba.motion_bound(dt) + bb.motion_bound(dt);
    let mut manifold = collide(&ca.shape, &ba.transform, &cb.shape, &bb.transform, reach);
    keep_reachable_points(&mut manifold, ba, bb, margin, dt);
    if manifold.is_empty() {
        return None;
    }
    Some(Contact {
        shape_a: pair.a,
        shape_b: pair.b,
        body_a: ca.body,
        body_b: cb.body,
        manifold,
        impulses: [PointImpulse::default(); 2],
        friction: Material::mix_friction(ca.material.friction, cb.material.friction),
        restitution: Material::mix_restitution(ca.material.restitution, cb.material.restitution),
    })
}

/// Drops points whose gap neither body could close this step at its
/// current speed.
fn keep_reachable_points(manifold: &mut ContactManifold, a: &Body, b: &Body, margin: f32, dt: f32) {
    // Points within the margin are kept whatever the speeds (the common
    // case in a pile), so the speeds are only worked out for the others.
    if manifold.points().iter().all(|p| p.separation <= margin) {
        return;
    }
    let mut kept = 0;
    for k in 0..manifold.count {
        let p = manifold.points[k];
        let va = a.linear_velocity + a.angular_velocity * (p.point - a.center).perp();
        let vb = b.linear_velocity + b.angular_velocity * (p.point - b.center).perp();
        if p.separation <= margin + (va.length() + vb.length()) * dt {
            manifold.points[kept] = p;
            kept += 1;
        }
    }
    manifold.count = kept;
}

/// Copies impulses from `previous` into `current` for points with the same
/// pair and feature id. Both lists are sorted by pair, so a binary search
/// for the first key and one merge pass find every match; each chunk of
/// new contacts does this on its own, in parallel.
fn warm_start_from(current: &mut [Contact], previous: &[Contact]) {
    let Some(first) = current.first() else {
        return;
    };
    // Start the merge where this run of keys begins in `previous`.
    let mut j = previous.partition_point(|p| p.key() < first.key());
    for c in current.iter_mut() {
        let key = c.key();
        while j < previous.len() && previous[j].key() < key {
            j += 1;
        }
        if j < previous.len() && previous[j].key() == key {
            let old = &previous[j];
            for k in 0..c.manifold.count {
                let id = c.manifold.points[k].id;
                if let Some(impulse) = find_impulse(old, id) {
                    c.impulses[k] = impulse;
                }
            }
        }
    }
}

fn find_impulse(contact: &Contact, id: FeatureId) -> Option<PointImpulse> {
    contact
        .manifold
        .points()
        .iter()
        .position(|p| p.id == id)
        .map(|k| contact.impulses[k])
}

//! Making one chunk of contacts: each pair's manifold (capsule pairs
//! eight at a time), its impulses carried over from last step, frozen
//! contacts put back, written into the chunk's slots.

use std::mem::MaybeUninit;

use carom_narrowphase::{
    collide_near, collide_placed, ContactManifold, ManifoldBatch, PlacedShape,
};

use crate::body::{Body, Material};
use crate::broadphase::Pair;
use crate::buffer::assume_written;
use crate::collider::{Collider, StepCollider};

use super::warm::WarmReader;
use super::{pair_key, sleeping_side, ChunkResult, Contact, ContactEnds, PointImpulse};

/// Pairs whose manifolds a batched fill computes before it makes their
/// contacts (see [`ChunkFill::fill_batched`]): their manifolds, 48 bytes
/// each, stay in the first-level cache until they are read back.
const BATCHED_FILL: usize = 256;

/// What making one chunk's contacts reads.
pub(super) struct ChunkFill<'a> {
    pub(super) inputs: &'a ContactInputs<'a>,
    /// Last step's contacts among bodies that cannot move, sorted by pair.
    pub(super) frozen: &'a [(Contact, ContactEnds)],
    pub(super) any_sleeping: bool,
}

/// Where contacts are written: a slot for each and one for its ends, as
/// many of each.
pub(super) struct Slots<'a> {
    pub(super) contacts: &'a mut [MaybeUninit<Contact>],
    pub(super) ends: &'a mut [MaybeUninit<ContactEnds>],
}

impl ChunkFill<'_> {
    /// Writes the contacts of `pairs` that have points, and their ends, into
    /// `slots` from slot `first` on (as many as there are pairs), with their
    /// warm starts read by `warm`, and what they came to into `result`.
    pub(super) fn chunk<R: WarmReader>(
        &self,
        mut slots: Slots,
        first: usize,
        pairs: &[Pair],
        result: &mut ChunkResult,
        warm: &mut R,
    ) {
        let mut made = MadeContacts::new(&mut slots, first, warm, self.frozen, pairs);
        if self.inputs.batch_rounded {
            for pairs in pairs.chunks(BATCHED_FILL) {
                self.fill_batched(&mut made, pairs);
            }
        } else {
            self.fill_directly(&mut made, pairs);
        }
        let kept = made.kept;
        result.kept = kept;
        result.points = made.points;
        result.frozen = made.frozen_kept;
        result.wake.clear();
        if self.any_sleeping {
            let views = self.inputs.views;
            // SAFETY: the fills wrote the contacts they kept.
            let contacts = unsafe { assume_written(&mut slots.contacts[first..first + kept]) };
            let sleepers = contacts.iter().flat_map(|c| sleeping_side(c, views));
            result.wake.extend(sleepers);
        }
    }

    /// Makes the contacts of `pairs` into `made`, each manifold computed as
    /// its pair comes, and gives the pairs that cannot move their frozen
    /// contacts.
    fn fill_directly<R: WarmReader>(&self, made: &mut MadeContacts<R>, pairs: &[Pair]) {
        for &pair in pairs {
            let manifold = match self.inputs.shapes_of(pair) {
                PairShapes::Fixed => {
                    made.keep_frozen(pair);
                    continue;
                }
                PairShapes::Placed(a, b, reach) => collide_placed(a, b, reach),
                PairShapes::Unplaced(reach) => self.inputs.collide_unplaced(pair, reach),
            };
            let (contact, bodies) = self.inputs.new_contact(pair, manifold);
            made.keep(contact, bodies);
        }
    }

    /// What [`ChunkFill::fill_directly`] does, with the manifolds computed
    /// first so that pairs of rounded segments go eight at a time (see
    /// [`ManifoldBatch`]), for at most [`BATCHED_FILL`] pairs. Worth it
    /// only when there are such pairs: circles alone pay for the extra
    /// pass.
    fn fill_batched<R: WarmReader>(&self, made: &mut MadeContacts<R>, pairs: &[Pair]) {
        let mut manifolds = [MaybeUninit::<ContactManifold>::uninit(); BATCHED_FILL];
        let manifolds = &mut manifolds[..pairs.len()];
        let mut fixed = [false; BATCHED_FILL];
        let mut batch = ManifoldBatch::new();
        for (slot, &pair) in pairs.iter().enumerate() {
            match self.inputs.shapes_of(pair) {
                PairShapes::Fixed => {
                    manifolds[slot].write(ContactManifold::EMPTY);
                    fixed[slot] = true;
                }
                PairShapes::Placed(a, b, reach) => batch.collide(a, b, reach, slot, manifolds),
                PairShapes::Unplaced(reach) => {
                    manifolds[slot].write(self.inputs.collide_unplaced(pair, reach));
                }
            }
        }
        batch.flush(manifolds);
        // SAFETY: every slot was written above or by the batch.
        let manifolds = unsafe { assume_written(manifolds) };
        for ((&pair, &manifold), &fixed) in pairs.iter().zip(manifolds.iter()).zip(&fixed) {
            if fixed {
                made.keep_frozen(pair);
            } else {
                let (contact, bodies) = self.inputs.new_contact(pair, manifold);
                made.keep(contact, bodies);
            }
        }
    }
}

/// A chunk's contacts as they are made, in pair order: those with points
/// are warm-started and written one after the other, and a pair of bodies
/// that cannot move gets its frozen contact back, if it had one.
struct MadeContacts<'s, 'w, 'r, R> {
    contacts: &'s mut [MaybeUninit<Contact>],
    ends: &'s mut [MaybeUninit<ContactEnds>],
    /// The slot of the first contact.
    first: usize,
    kept: usize,
    points: usize,
    /// Finds last step's impulses as the contacts come, in pair order.
    warm: &'r mut R,
    /// The frozen contacts, sorted by pair likewise, and where the pass
    /// along them is.
    frozen: &'w [(Contact, ContactEnds)],
    next_frozen: usize,
    /// How many of the kept contacts are frozen ones.
    frozen_kept: usize,
}

impl<'s, 'w, 'r, R: WarmReader> MadeContacts<'s, 'w, 'r, R> {
    /// Ready to write the contacts of `pairs` into `slots` from slot
    /// `first` on, the warm starts read by `warm`.
    fn new(
        slots: &'s mut Slots,
        first: usize,
        warm: &'r mut R,
        frozen: &'w [(Contact, ContactEnds)],
        pairs: &[Pair],
    ) -> MadeContacts<'s, 'w, 'r, R> {
        let first_key = pairs.first().map_or(0, |p| pair_key(p.a, p.b));
        MadeContacts {
            contacts: slots.contacts,
            ends: slots.ends,
            first,
            kept: 0,
            points: 0,
            warm,
            frozen,
            next_frozen: frozen.partition_point(|(c, _)| c.key() < first_key),
            frozen_kept: 0,
        }
    }

    /// Writes a contact and its ends into the next slot.
    #[inline(always)]
    fn write(&mut self, contact: Contact, ends: ContactEnds) {
        let at = self.first + self.kept;
        self.warm.before_write(at, self.contacts);
        self.ends[at].write(ends);
        self.contacts[at].write(contact);
        self.kept += 1;
    }

    /// Writes the frozen contact of `pair`, whose bodies cannot move, if
    /// it has one; pairs must come in pair order.
    fn keep_frozen(&mut self, pair: Pair) {
        let key = pair_key(pair.a, pair.b);
        let frozen = self.frozen;
        while self.next_frozen < frozen.len() && frozen[self.next_frozen].0.key() < key {
            self.next_frozen += 1;
        }
        if let Some(&(contact, ends)) = frozen.get(self.next_frozen).filter(|(c, _)| c.key() == key)
        {
            self.points += contact.manifold.count;
            self.write(contact, ends);
            self.frozen_kept += 1;
            self.next_frozen += 1;
        }
    }

    /// Writes `contact` between `bodies`, if it has points, with the
    /// impulses its points' features had last step, and its ends. Contacts
    /// must come in pair order.
    #[inline(always)]
    fn keep(&mut self, mut contact: Contact, bodies: [u32; 2]) {
        if contact.manifold.is_empty() {
            return;
        }
        if let Some(old) = self.warm.matching(contact.key(), self.contacts) {
            for k in 0..contact.manifold.count {
                if let Some(impulse) = old.impulse_of(contact.manifold.points[k].id) {
                    contact.impulses[k] = impulse;
                }
            }
        }
        self.points += contact.manifold.count;
        let ends = ContactEnds::new(bodies, contact.manifold.count);
        self.write(contact, ends);
    }
}

/// What computing a pair's contact reads: the step's shapes (see
/// [`StepCollider`]), the bodies and colliders for what those leave out,
/// and the speculative margin.
pub(crate) struct ContactInputs<'a> {
    pub views: &'a [StepCollider],
    /// Whether pairs of rounded segments (a stadium with a stadium or a
    /// segment) may come, and are worth computing eight at a time.
    pub batch_rounded: bool,
    pub bodies: &'a [Body],
    pub colliders: &'a [Collider],
    pub margin: f32,
}

impl ContactInputs<'_> {
    /// What the manifold of one pair is computed from: nothing when
    /// neither body can move, else the shapes and the margin grown by a
    /// bound on both bodies' motion (see [`ContactInputs::new_contact`]).
    #[inline]
    fn shapes_of(&self, pair: Pair) -> PairShapes<'_> {
        let (a, b) = (pair.a as usize, pair.b as usize);
        let (va, vb) = (&self.views[a], &self.views[b]);
        // A pair of bodies that cannot move keeps last step's contact, frozen.
        if !(va.moving || vb.moving) {
            return PairShapes::Fixed;
        }
        let reach = self.margin + va.motion + vb.motion;
        match (&va.placed, &vb.placed) {
            (Some(pa), Some(pb)) => PairShapes::Placed(pa, pb, reach),
            _ => PairShapes::Unplaced(reach),
        }
    }

    /// The manifold of a pair with a shape that is not placed (a sector),
    /// from the shapes and their bodies' poses.
    fn collide_unplaced(&self, pair: Pair, reach: f32) -> ContactManifold {
        let (ca, cb) = (
            &self.colliders[pair.a as usize],
            &self.colliders[pair.b as usize],
        );
        let xf_a = &self.bodies[ca.body as usize].transform;
        let xf_b = &self.bodies[cb.body as usize].transform;
        collide_near(&ca.shape, xf_a, &cb.shape, xf_b, reach)
    }

    /// The contact of one pair from its manifold (see
    /// [`ContactInputs::shapes_of`]).
    ///
    /// The manifold holds the points whose gap could close within the step,
    /// `s ≤ margin + motion_A + motion_B`, each body's motion bounding how far
    /// any of its points can move in the step, `(|v| + |ω|·r_max)·dt`.
    /// Using speeds rather than the current approach velocity matters in a
    /// crowd: two balls falling side by side do not approach, but if the
    /// lower one strikes a pile and stops mid-step the upper one runs into
    /// it, and only a constraint that already exists can catch that. Points
    /// that never close apply no impulse (a speculative point pushes only
    /// when the bodies would pass contact within the substep), so extra ones
    /// cost solver time, not accuracy: a tighter test with each body's speed
    /// at the point itself dropped about 1 % of the hopper's points (4 % of
    /// the tumbler's) and cost more time than solving them.
    #[inline(always)]
    fn new_contact(&self, pair: Pair, manifold: ContactManifold) -> (Contact, [u32; 2]) {
        let (va, vb) = (&self.views[pair.a as usize], &self.views[pair.b as usize]);
        let contact = Contact {
            shape_a: pair.a,
            shape_b: pair.b,
            manifold,
            impulses: [PointImpulse::default(); 2],
            friction: Material::mix_friction(va.friction, vb.friction),
            restitution: Material::mix_restitution(va.restitution, vb.restitution),
        };
        (contact, [va.body, vb.body])
    }
}

/// What a pair's manifold is computed from (see [`ContactInputs::shapes_of`]).
enum PairShapes<'a> {
    /// Neither body can move: no manifold, last step's contact is kept.
    Fixed,
    /// Two placed shapes and the margin to collide them with.
    Placed(&'a PlacedShape, &'a PlacedShape, f32),
    /// A shape that is not placed (a sector), and the margin.
    Unplaced(f32),
}

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
//! resting kinematic) are not recomputed: they are carried over unchanged,
//! merged into the sorted list. A new contact between a moving body and a sleeping one asks for the
//! sleeping body's island to wake.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use carom_narrowphase::{
    collide, collide_placed, ContactManifold, FeatureId, ManifoldBatch, PlacedShape,
};
use rayon::prelude::*;

use crate::body::{Body, Material};
use crate::broadphase::Pair;
use crate::buffer::{assume_written, refill};
use crate::collider::{Collider, StepCollider};
use crate::threading::{share_slots_after, HelperBoard, Threading};

/// Pairs handed to one task when computing manifolds.
const MANIFOLD_CHUNK: usize = 256;

/// A shared update reads the first `1 / IN_PLACE_PART` of last step's
/// contacts where they lie, and the rest from a copy the other thread
/// makes during the broadphase (see [`ContactSet::make_shared`]): the
/// copy, memory-bound, slowed the calling thread's own broadphase work
/// beside it. Measured on the hopper on two threads (9 alternating runs):
/// copying everything, 1.160 s; reading 20 to 45 % in place, 1.129–1.137
/// s, the broadphase 0.270 → 0.252–0.255 s; from 60 %, the in-place run
/// outlasts the other thread's chunks (narrowphase 0.147 → 0.178 s).
const IN_PLACE_PART: usize = 3;

/// Impulses a contact point accumulated, kept from step to step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(C)]
pub(crate) struct PointImpulse {
    /// Normal impulse, N·s, ≥ 0.
    pub normal: f32,
    /// Friction impulse, N·s.
    pub tangent: f32,
}

/// A touching pair of shapes. The layout is fixed (`repr(C)`, checked
/// below): the AVX2 solver path loads a contact's fields as packed floats.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct Contact {
    pub shape_a: u32,
    pub shape_b: u32,
    pub manifold: ContactManifold,
    pub impulses: [PointImpulse; 2],
    pub friction: f32,
    pub restitution: f32,
}

/// Byte offsets of the fields the AVX2 solver path loads four at a time.
pub(crate) mod layout {
    /// `normal.x, normal.y, points[0].point.x, points[0].point.y`.
    pub const NORMAL: usize = 8;
    /// `points[0].separation, points[0].id (+ padding), points[1].point`.
    pub const FIRST_SEPARATION: usize = 24;
    /// `points[1].separation, points[1].id (+ padding), count`.
    pub const SECOND_SEPARATION: usize = 40;
    /// `impulses[0].normal, impulses[0].tangent, impulses[1]`.
    pub const IMPULSES: usize = 56;
    /// `impulses[1].normal, impulses[1].tangent, friction, restitution`.
    pub const SECOND_IMPULSE: usize = 64;
}

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<Contact>() == 80);
    assert!(offset_of!(Contact, manifold) == layout::NORMAL);
    assert!(offset_of!(ContactManifold, points) == 8);
    assert!(size_of::<carom_narrowphase::ManifoldPoint>() == 16);
    assert!(offset_of!(carom_narrowphase::ManifoldPoint, separation) == 8);
    assert!(offset_of!(Contact, impulses) == layout::IMPULSES);
    assert!(offset_of!(Contact, friction) == 72 && offset_of!(Contact, restitution) == 76);
    assert!(offset_of!(PointImpulse, tangent) == 4);
};

impl Contact {
    /// A placeholder with no points.
    pub(crate) const NONE: Contact = Contact {
        shape_a: 0,
        shape_b: 0,
        manifold: ContactManifold::EMPTY,
        impulses: [PointImpulse {
            normal: 0.0,
            tangent: 0.0,
        }; 2],
        friction: 0.0,
        restitution: 0.0,
    };

    #[inline]
    fn key(&self) -> u64 {
        pair_key(self.shape_a, self.shape_b)
    }
}

/// A contact's two bodies (those of `shape_a` and `shape_b`) and whether it
/// has two points. Kept in a list of their own beside the contacts, in the
/// same order, so that colouring the constraint graph streams 8 bytes a
/// contact rather than whole contacts (at 100,000 bodies that halved its
/// time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ContactEnds {
    body_a: u32,
    /// `body_b`, with [`ContactEnds::TWO_POINTS`] set for a contact of two
    /// points: body indices fit in 31 bits (see [`crate::MAX_BODIES`]).
    body_b_and_count: u32,
}

impl ContactEnds {
    const TWO_POINTS: u32 = 1 << 31;

    /// The ends of a contact of `points` points between `bodies`.
    #[inline]
    pub(crate) fn new(bodies: [u32; 2], points: usize) -> ContactEnds {
        let two = if points == 2 {
            ContactEnds::TWO_POINTS
        } else {
            0
        };
        ContactEnds {
            body_a: bodies[0],
            body_b_and_count: bodies[1] | two,
        }
    }

    /// The same ends with each body `b` named `rename(b)`.
    #[inline]
    pub fn renamed(self, rename: impl Fn(u32) -> u32) -> ContactEnds {
        let [a, b] = self.bodies();
        ContactEnds {
            body_a: rename(a),
            body_b_and_count: rename(b) | (self.body_b_and_count & ContactEnds::TWO_POINTS),
        }
    }

    /// The contact's bodies, A's first.
    #[inline]
    pub fn bodies(self) -> [u32; 2] {
        [
            self.body_a,
            self.body_b_and_count & !ContactEnds::TWO_POINTS,
        ]
    }

    #[inline]
    pub fn has_two_points(self) -> bool {
        self.body_b_and_count & ContactEnds::TWO_POINTS != 0
    }
}

/// The sort key of the pair of shapes `a` and `b`: by `a`, then `b`.
#[inline]
fn pair_key(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}

/// What warm starting needs of a last-step contact: its pair and its
/// points' feature ids and impulses. 28 bytes against a contact's 80, so
/// keeping last step's impulses costs little while the new contacts are
/// written over the old (two threads copy every contact's).
///
/// No point count: a contact kept has one point or two, and one of a
/// single point repeats its id, which then finds the first impulse either
/// way. The pair's shapes are two `u32`s rather than one `u64` key, so
/// that the whole is aligned to 4 bytes and no padding rounds it up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WarmStart {
    shapes: [u32; 2],
    ids: [FeatureId; 2],
    impulses: [PointImpulse; 2],
}

const _: () = assert!(std::mem::size_of::<WarmStart>() == 28);

impl WarmStart {
    fn of(contact: &Contact) -> WarmStart {
        let [p, q] = contact.manifold.points;
        let second = if contact.manifold.count > 1 {
            q.id
        } else {
            p.id
        };
        WarmStart {
            shapes: [contact.shape_a, contact.shape_b],
            ids: [p.id, second],
            impulses: contact.impulses,
        }
    }

    /// The sort key of its pair (see [`pair_key`]).
    #[inline]
    fn key(&self) -> u64 {
        pair_key(self.shapes[0], self.shapes[1])
    }

    /// The impulse kept for the point with feature `id`, if any.
    fn impulse_of(&self, id: FeatureId) -> Option<PointImpulse> {
        self.ids
            .iter()
            .position(|&i| i == id)
            .map(|k| self.impulses[k])
    }
}

/// What one chunk of pairs came to: its contacts with points are the first
/// `kept` of its slots.
#[derive(Debug, Default)]
struct ChunkResult {
    kept: usize,
    /// Contact points in those contacts.
    points: usize,
    /// How many of them are frozen contacts put back in place.
    frozen: usize,
    /// The sleeping bodies they touch.
    wake: Vec<u32>,
}

/// All contacts of the last step, sorted by shape pair.
#[derive(Debug, Default)]
pub(crate) struct ContactSet {
    contacts: Vec<Contact>,
    /// Per contact, in the same order: what colouring reads of it.
    ends: Vec<ContactEnds>,
    /// Last step's contacts among bodies that cannot move, with their ends,
    /// kept aside while `contacts` is rebuilt.
    frozen: Vec<(Contact, ContactEnds)>,
    /// Scratch for the frozen contacts no chunk put back.
    missing: Vec<(Contact, ContactEnds)>,
    /// How many frozen contacts the chunks put back, and how many were
    /// merged in after, over every update so far.
    #[cfg(test)]
    frozen_counts: [usize; 2],
    /// On the calling thread, over every update so far: how many old
    /// contacts were spilled one by one before being written over, and in
    /// how many updates the list moved, so that all were.
    #[cfg(test)]
    spill_counts: [usize; 2],
    /// Over every shared update so far: chunks made in the in-place run,
    /// chunks made from the copy alone, and updates that copied every
    /// contact because the list moved.
    #[cfg(test)]
    shared_counts: [usize; 3],
    /// Whether `frozen` still holds exactly the contacts that cannot move:
    /// true from a step that kept contacts aside and woke no body until
    /// anything changes which bodies can move (see [`ContactSet::update`]).
    frozen_current: bool,
    /// Per chunk of pairs: what its new contacts came to.
    chunk_results: Vec<ChunkResult>,
    /// Per chunk, shared among threads: whether its run may be moved (see
    /// [`InOrderMoves`]).
    chunk_ready: Vec<AtomicUsize>,
    /// Contact points in `contacts`, counted as they are made.
    points: usize,
    /// Sleeping bodies that a moving body touched this step.
    to_wake: Vec<u32>,
    /// Runs of contacts the last update left where they were made, to be
    /// moved to where they go before anything reads the contacts (see
    /// [`ContactSet::update`]). While any are, `contacts` is left empty;
    /// `ends` is complete.
    pending: Vec<PendingRun>,
}

/// A run of contacts made in a chunk's own slots, still to move down to
/// where its run goes.
#[derive(Debug, Clone, Copy)]
struct PendingRun {
    from: usize,
    to: usize,
    len: usize,
}

/// The moves of contacts an update left to make (see
/// [`ContactSet::ends_and_moves`]): the contacts cannot be read until
/// [`PendingMoves::make`] has made them.
#[must_use = "the contacts cannot be read until the moves are made"]
pub(crate) struct PendingMoves<'a> {
    contacts: &'a mut Vec<Contact>,
    runs: &'a mut Vec<PendingRun>,
    /// How many contacts the list holds once the runs are in place.
    len: usize,
}

impl PendingMoves<'_> {
    /// Moves the runs, in order, and completes the list.
    pub fn make(self) {
        let base = self.contacts.as_mut_ptr();
        for run in self.runs.iter() {
            // SAFETY: a run's source is the slots its chunk wrote and its
            // destination lies in the list's first `len` slots, both within
            // the capacity the update filled; run by run in chunk order, a
            // destination covers only slots of runs already moved and of
            // its own (see `InOrderMoves`), and `copy` allows the overlap.
            unsafe { std::ptr::copy(base.add(run.from), base.add(run.to), run.len) };
        }
        self.runs.clear();
        // SAFETY: the first `len` slots now hold the contacts made this
        // step: the runs the update moved or made in place, and these.
        unsafe { self.contacts.set_len(self.len) };
    }
}

impl ContactSet {
    /// Forgets every contact (and so every warm-start impulse).
    pub fn clear(&mut self) {
        self.pending.clear();
        self.contacts.clear();
        self.ends.clear();
        self.frozen.clear();
        self.frozen_current = false;
        self.points = 0;
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The contacts, to write, with their ends, to read.
    pub fn split_mut(&mut self) -> (&mut [Contact], &[ContactEnds]) {
        self.assert_in_place();
        (&mut self.contacts, &self.ends)
    }

    /// The contacts' ends, complete, and the moves of contacts the last
    /// update left to make, which must be made before the contacts are
    /// read (none unless the update shared its chunks with a helper).
    pub fn ends_and_moves(&mut self) -> (&[ContactEnds], PendingMoves<'_>) {
        let moves = PendingMoves {
            len: self.ends.len(),
            contacts: &mut self.contacts,
            runs: &mut self.pending,
        };
        (&self.ends, moves)
    }

    /// Checks that no move of contacts is pending: until the moves are
    /// made, the list is empty.
    fn assert_in_place(&self) {
        assert!(
            self.pending.is_empty() && self.contacts.len() == self.ends.len(),
            "contacts read before the moves left to make were made"
        );
    }

    #[cfg(test)]
    pub fn as_slice(&self) -> &[Contact] {
        self.assert_in_place();
        &self.contacts
    }

    /// Per contact, in the same order: its bodies and point count.
    #[cfg(test)]
    pub fn ends(&self) -> &[ContactEnds] {
        &self.ends
    }

    /// The contacts and, in the same order, their ends.
    pub fn lists(&self) -> (&[Contact], &[ContactEnds]) {
        self.assert_in_place();
        (&self.contacts, &self.ends)
    }

    /// Each contact with its bodies.
    pub fn with_bodies(&self) -> impl Iterator<Item = (&Contact, [u32; 2])> {
        self.assert_in_place();
        let ends = self.ends.iter().map(|e| e.bodies());
        self.contacts.iter().zip(ends)
    }

    /// Whether shapes `a` and `b` (in broadphase pair order) have a contact
    /// this step. The list is sorted by pair, so this is a binary search.
    pub fn contains_pair(&self, a: u32, b: u32) -> bool {
        self.assert_in_place();
        self.contacts
            .binary_search_by_key(&pair_key(a, b), Contact::key)
            .is_ok()
    }

    /// Contact points, speculative ones included.
    pub fn point_count(&self) -> usize {
        self.points
    }

    /// The deepest overlap among all points, ≥ 0.
    pub fn max_penetration(&self) -> f32 {
        self.assert_in_place();
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

    /// Copies what warm starting needs of each contact from a third of the
    /// way in on (its pair, its points' features and impulses) into its
    /// slot of `warm` (one slot per contact), before the contacts are made
    /// again over the old ones on several threads; those before are read
    /// where they lie (see [`ContactSet::make_shared`]). Reads nothing the
    /// broadphase writes, so the two can run side by side.
    pub fn keep_warm_starts<'w>(
        &self,
        warm: &'w mut [MaybeUninit<WarmStart>],
        threading: Threading,
    ) -> KeptWarmStarts<'w> {
        self.assert_in_place();
        assert_eq!(warm.len(), self.contacts.len(), "one slot per contact");
        let from = self.contacts.len() / IN_PLACE_PART;
        warm[from..]
            .par_iter_mut()
            .zip(self.contacts[from..].par_iter())
            .with_min_len(threading.min_len())
            .for_each(|(slot, contact)| {
                slot.write(WarmStart::of(contact));
            });
        KeptWarmStarts { slots: warm, from }
    }

    /// Recomputes the manifolds of `pairs` and carries over the impulses of
    /// points that persist. With `any_sleeping`, last step's contacts among
    /// bodies that cannot move are kept as they were: put back where their
    /// pairs come, as the chunks are made (those whose pairs the
    /// broadphase no longer reports are merged in after).
    ///
    /// Those frozen contacts are found by a pass over every contact, unless
    /// the last step found them, woke no body, and nothing since changed the
    /// bodies (`bodies_changed`: which bodies can move changes only with the
    /// bodies). Then they are the same contacts: the last step made new ones
    /// only for pairs with a body that could move, and one still can.
    ///
    /// The new contacts are written over the old ones, each chunk of pairs
    /// keeping only its contacts with points. On the calling thread alone
    /// each chunk writes right after the previous one's contacts, and last
    /// step's contacts are read for their impulses where they lie, ahead of
    /// the writing (see [`InPlaceReader`]). Shared with a thread waiting on
    /// a board, each chunk writes into slots of its own and its run is
    /// moved down to follow the previous chunk's as soon as that one is in
    /// place (see [`InOrderMoves`]), and the impulses come from a compact
    /// copy made before (see [`ContactSet::keep_warm_starts`]). Either way
    /// the list comes out the same.
    ///
    /// Shared with a helper, the runs of the chunks the helper made are not
    /// moved here, only their ends: those moves are left to make (see
    /// [`ContactSet::ends_and_moves`]), by the thread that made the runs,
    /// while the ends are already read.
    pub fn update(
        &mut self,
        pairs: &[Pair],
        inputs: &ContactInputs,
        any_sleeping: bool,
        bodies_changed: bool,
        on: UpdateOn,
    ) {
        self.assert_in_place();
        let old_len = self.contacts.len();
        let views = inputs.views;
        let contacts = self.contacts.iter().zip(&self.ends);
        let frozen_now = contacts.filter(|(c, _)| is_frozen(c, views));
        if !any_sleeping {
            self.frozen.clear();
        } else if !self.frozen_current || bodies_changed {
            self.frozen.clear();
            self.frozen.extend(frozen_now.map(|(c, ends)| (*c, *ends)));
        } else {
            debug_assert!(
                frozen_now
                    .map(|(c, _)| c.key())
                    .eq(self.frozen.iter().map(|(c, _)| c.key())),
                "the contacts kept aside are still those that cannot move"
            );
        }
        refill(&mut self.ends, pairs.len());
        let chunks = pairs.len().div_ceil(MANIFOLD_CHUNK);
        self.chunk_results.resize_with(chunks, Default::default);
        let len = match on {
            UpdateOn::Shared { warm, board } => {
                assert_eq!(warm.slots.len(), old_len, "one warm start slot per contact");
                self.make_shared(pairs, inputs, any_sleeping, warm, board)
            }
            UpdateOn::CallingThread { spill } => {
                assert!(spill.len() >= old_len, "a spill slot per contact");
                self.make_on_calling_thread(pairs, inputs, any_sleeping, spill)
            }
        };
        // SAFETY: the first `len` slots of both lists now hold the chunks'
        // written runs (of contacts, once the moves left to make are made),
        // and both types are plain data.
        unsafe {
            if self.pending.is_empty() {
                self.contacts.set_len(len);
            }
            self.ends.set_len(len);
        }
        let results = &self.chunk_results[..chunks];
        let put_back: usize = results.iter().map(|r| r.frozen).sum();
        self.points = results.iter().map(|r| r.points).sum();
        if put_back < self.frozen.len() {
            self.merge_missing_frozen();
        }
        #[cfg(test)]
        {
            self.frozen_counts[0] += put_back;
        }
        self.to_wake.clear();
        for result in &self.chunk_results[..chunks] {
            self.to_wake.extend_from_slice(&result.wake);
        }
        // Bodies woken after this step change which contacts are frozen.
        self.frozen_current = any_sleeping && self.to_wake.is_empty();
    }

    /// Makes the contacts of `pairs`, chunk by chunk, shared with the
    /// thread waiting on `board`; returns how many there are. Last step's
    /// contacts from `warm.from` on were copied aside into `warm`, and the
    /// ones below still lie where they were.
    ///
    /// This thread first makes, one after the other and in place as one
    /// thread alone does (see [`InPlaceReader`]), the chunks that may need
    /// the contacts below the copy: the *in-place run*, up to the first
    /// chunk whose pairs all come after the first copied contact's and
    /// whose own slots lie past every contact read in place. Meanwhile the
    /// other thread makes the later chunks from the back, each into slots
    /// of its own (see [`InOrderMoves`]), reading only the copy; so no
    /// write reaches a contact still to be read. This thread then joins it
    /// on the chunks left. The runs of the chunks the other thread made are
    /// left to move.
    fn make_shared(
        &mut self,
        pairs: &[Pair],
        inputs: &ContactInputs,
        any_sleeping: bool,
        warm: KeptWarmStarts,
        board: &HelperBoard,
    ) -> usize {
        let KeptWarmStarts { slots: warm, from } = warm;
        let mut split = from;
        if split > 0 && self.contacts.capacity() < pairs.len() {
            // The list moves to a larger buffer: the rest is copied first.
            for (slot, contact) in warm[..split].iter_mut().zip(&self.contacts) {
                slot.write(WarmStart::of(contact));
            }
            split = 0;
        }
        let (spill, copied) = warm.split_at_mut(split);
        // SAFETY: the slots from `split` on were written, by the copy or
        // just above.
        let copied: &[WarmStart] = unsafe { assume_written(copied) };
        // Keeps the buffer, and so the contacts below `split`, in place.
        refill(&mut self.contacts, pairs.len());
        let chunks = pairs.len().div_ceil(MANIFOLD_CHUNK);
        let run_chunks = match copied.first() {
            _ if split == 0 => 0,
            // Every old contact lies in place: the run makes all chunks.
            None => chunks,
            Some(first) => {
                let before = pairs.partition_point(|p| pair_key(p.a, p.b) < first.key());
                let after_copy = before.div_ceil(MANIFOLD_CHUNK);
                after_copy.max(split.div_ceil(MANIFOLD_CHUNK)).min(chunks)
            }
        };
        let run_pairs = (run_chunks * MANIFOLD_CHUNK).min(pairs.len());
        #[cfg(test)]
        {
            self.shared_counts[0] += run_chunks;
            self.shared_counts[1] += chunks - run_chunks;
            self.shared_counts[2] += usize::from(split < from);
        }
        let fill = ChunkFill {
            inputs,
            frozen: &self.frozen,
            any_sleeping,
        };
        let slots = Slots {
            contacts: &mut self.contacts.spare_capacity_mut()[..pairs.len().max(split)],
            ends: &mut self.ends.spare_capacity_mut()[..pairs.len()],
        };
        self.chunk_ready.resize_with(chunks, AtomicUsize::default);
        let moves = InOrderMoves::new(slots, &mut self.chunk_ready[..chunks]);
        let (run_results, shared_results) = self.chunk_results[..chunks].split_at_mut(run_chunks);
        let in_place_run = || {
            {
                // SAFETY: no other chunk's slots lie below the run's (the
                // first after it writes from its own first slot, at or past
                // both), and no chunk is reported before these are dropped.
                let front = unsafe { moves.front_slots(run_pairs.max(split), run_pairs) };
                let mut reader = SplitReader::new(InPlaceReader::new(split, spill), copied);
                let mut len = 0;
                let run = pairs[..run_pairs].chunks(MANIFOLD_CHUNK);
                for (pairs, result) in run.zip(run_results.iter_mut()) {
                    let chunk = Slots {
                        contacts: &mut *front.contacts,
                        ends: &mut *front.ends,
                    };
                    fill.chunk(chunk, len, pairs, result, &mut reader);
                    len += result.kept;
                }
            }
            for (k, result) in run_results.iter().enumerate() {
                moves.finished(k, result.kept, true);
            }
        };
        share_slots_after(Some(board), in_place_run, shared_results, |t, result| {
            let k = run_chunks + t;
            let pairs = &pairs[k * MANIFOLD_CHUNK..pairs.len().min((k + 1) * MANIFOLD_CHUNK)];
            // SAFETY: each chunk is made once, so until it is reported
            // finished its slots are its own.
            let (slots, in_place) = unsafe { moves.chunk_slots(k, pairs.len()) };
            let mut reader = CopiedReader::new(copied, pairs);
            fill.chunk(slots, 0, pairs, result, &mut reader);
            moves.finished(k, result.kept, in_place);
        });
        moves.finish(&mut self.pending)
    }

    /// Makes the contacts of `pairs` on this thread, chunk after chunk, each
    /// written right after the previous one's over last step's contacts,
    /// which are read in place for their warm starts (see
    /// [`InPlaceReader`]; `spill` has a slot per old contact); returns how
    /// many there are.
    fn make_on_calling_thread(
        &mut self,
        pairs: &[Pair],
        inputs: &ContactInputs,
        any_sleeping: bool,
        spill: &mut [MaybeUninit<WarmStart>],
    ) -> usize {
        let old_len = self.contacts.len();
        let moves_buffer = self.contacts.capacity() < pairs.len();
        let mut reader = if !moves_buffer {
            // SAFETY: contacts are plain data, so nothing is dropped and
            // their bytes stay in the buffer, to be read in place.
            unsafe { self.contacts.set_len(0) };
            InPlaceReader::new(old_len, spill)
        } else {
            // The list must move to a larger buffer: last step's contacts
            // are all copied aside first.
            let reader = InPlaceReader::all_spilled(&self.contacts, spill);
            refill(&mut self.contacts, pairs.len());
            reader
        };
        let fill = ChunkFill {
            inputs,
            frozen: &self.frozen,
            any_sleeping,
        };
        // Last step's contacts lie in the first `old_len` slots.
        let span = pairs.len().max(old_len);
        let slots = Slots {
            contacts: &mut self.contacts.spare_capacity_mut()[..span],
            ends: &mut self.ends.spare_capacity_mut()[..pairs.len()],
        };
        let chunks = pairs.chunks(MANIFOLD_CHUNK);
        let mut len = 0;
        for (pairs, result) in chunks.zip(&mut self.chunk_results) {
            // Each chunk writes from `len`, which never passes its first
            // pair's index.
            let chunk = Slots {
                contacts: &mut *slots.contacts,
                ends: &mut *slots.ends,
            };
            fill.chunk(chunk, len, pairs, result, &mut reader);
            len += result.kept;
        }
        #[cfg(test)]
        {
            let one_by_one = if moves_buffer { 0 } else { reader.spill_len };
            self.spill_counts[0] += one_by_one;
            self.spill_counts[1] += usize::from(moves_buffer);
        }
        len
    }

    /// Merges into the list the frozen contacts whose pairs the broadphase
    /// no longer reported (their boxes parted while the bodies slept), so
    /// that no chunk put them back. Rare: it first moves the contacts
    /// left to move, then searches for each frozen contact.
    fn merge_missing_frozen(&mut self) {
        let (_, moves) = self.ends_and_moves();
        moves.make();
        let mut missing = std::mem::take(&mut self.missing);
        missing.clear();
        for &(contact, ends) in &self.frozen {
            let key = contact.key();
            let at = self.contacts.partition_point(|c| c.key() < key);
            if self.contacts.get(at).map_or(true, |c| c.key() != key) {
                missing.push((contact, ends));
                self.points += contact.manifold.count;
            }
        }
        merge_sorted(&mut self.contacts, &mut self.ends, &missing);
        #[cfg(test)]
        {
            self.frozen_counts[1] += missing.len();
        }
        self.missing = missing;
    }
}

/// Moves each chunk's run of contacts down to follow the previous chunk's
/// run as soon as both chunks are done, on whichever thread finishes one,
/// so that the moves overlap the making of later chunks instead of
/// following all of it on one thread.
///
/// Chunk `k` writes the slots from `k · MANIFOLD_CHUNK`, and its run goes
/// where the runs before it end, which is no higher than its own first slot
/// and no lower than the end of the runs already moved. The moves are made
/// one at a time and in chunk order (one thread holds `moving`), so a move
/// touches only slots of chunks already moved and of its own chunk, never
/// those of a chunk still being made. A chunk whose every predecessor is
/// already in place when it starts (as the chunks a thread takes one after
/// another mostly are) writes straight where its run goes, which lies in
/// slots of chunks already moved and of its own, and is not moved. The
/// result is the same whoever moves what.
///
/// The runs of chunks made on a thread other than the one that created
/// this (the leader's helper, which takes chunks from the back, so they
/// follow all of the leader's) and of every chunk after the first of them
/// are not moved: only their ends are, and `end` advances as if they were.
/// Their contacts stay in their own slots, which nothing writes again (no
/// chunk is made in place once a run was left), until [`PendingMoves`]
/// moves them, in the same order.
struct InOrderMoves<'a> {
    slots: *mut MaybeUninit<Contact>,
    /// The contacts' ends, moved alike.
    ends: *mut MaybeUninit<ContactEnds>,
    /// Per chunk: 0 while it is being made, then its run's length plus one,
    /// with [`IN_PLACE`] set if it was made where it goes.
    ready: &'a [AtomicUsize],
    /// Held by the thread making moves.
    moving: AtomicBool,
    /// The first chunk not yet moved, and where its run goes (changed only
    /// by the thread holding `moving`).
    next: AtomicUsize,
    end: AtomicUsize,
    /// The thread that created this, whose chunks' runs are moved as they
    /// are made; and whether a run was left to move later yet.
    leader: std::thread::ThreadId,
    left: AtomicBool,
}

/// Marks a chunk made where its run goes (see [`InOrderMoves`]).
const IN_PLACE: usize = 1 << (usize::BITS - 1);
/// Marks a chunk made on another thread than the leader, whose run is left
/// to move later (see [`InOrderMoves`]).
const MADE_ELSEWHERE: usize = 1 << (usize::BITS - 2);

/// The run length (plus one) of a chunk's `ready` entry, without its
/// marks: 0 while the chunk is being made.
fn ready_len(ready: usize) -> usize {
    ready & !(IN_PLACE | MADE_ELSEWHERE)
}

/// Whether a chunk with `ready` marks is left to move later, given whether
/// a chunk before it was.
fn left_to_move(ready: usize, left_before: bool) -> bool {
    ready & IN_PLACE == 0 && (ready & MADE_ELSEWHERE != 0 || left_before)
}

// SAFETY: `slots` is written by each chunk's maker in its own range, and
// by the mover only in the ranges the type's notes describe.
unsafe impl Sync for InOrderMoves<'_> {}

impl<'a> InOrderMoves<'a> {
    fn new(slots: Slots<'a>, ready: &'a mut [AtomicUsize]) -> Self {
        for r in ready.iter_mut() {
            *r.get_mut() = 0;
        }
        InOrderMoves {
            slots: slots.contacts.as_mut_ptr(),
            ends: slots.ends.as_mut_ptr(),
            ready,
            moving: AtomicBool::new(false),
            next: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            leader: std::thread::current().id(),
            left: AtomicBool::new(false),
        }
    }

    /// The `len` slots chunk `k` writes, and whether they are where its
    /// run goes: so they are when every chunk before it is in place, which
    /// the thread moving runs would know (if it is busy, the chunk takes
    /// the slots from its own first one).
    ///
    /// # Safety
    /// Only the maker of chunk `k` may hold them, and only until it calls
    /// [`InOrderMoves::finished`].
    unsafe fn chunk_slots(&self, k: usize, len: usize) -> (Slots<'_>, bool) {
        let mut first = k * MANIFOLD_CHUNK;
        let mut in_place = false;
        let free = self
            .moving
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst);
        if free.is_ok() {
            // Chunk `k` is not ready, so neither changes until it is. Once a
            // run was left, its slots may lie where this one's would go.
            let left = self.left.load(Ordering::Relaxed);
            if self.next.load(Ordering::Relaxed) == k && !left {
                first = self.end.load(Ordering::Relaxed);
                in_place = true;
            }
            self.moving.store(false, Ordering::SeqCst);
        }
        // SAFETY: the ranges are chunk `k`'s own slots or lie where its run
        // goes, below them and above the runs already moved (see the
        // type's notes), within the buffers.
        let slots = unsafe {
            Slots {
                contacts: std::slice::from_raw_parts_mut(self.slots.add(first), len),
                ends: std::slice::from_raw_parts_mut(self.ends.add(first), len),
            }
        };
        (slots, in_place)
    }

    /// The first `contacts` slots for contacts and the first `ends` for
    /// their ends, for chunks made in place one after the other from the
    /// first (see [`ContactSet::make_shared`]).
    ///
    /// # Safety
    /// Only one holder, which must drop them before any of its chunks is
    /// reported finished; no other chunk's slots may lie below `contacts`
    /// or `ends`.
    unsafe fn front_slots(&self, contacts: usize, ends: usize) -> Slots<'_> {
        // SAFETY: within the buffers, and the caller's guarantees.
        unsafe {
            Slots {
                contacts: std::slice::from_raw_parts_mut(self.slots, contacts),
                ends: std::slice::from_raw_parts_mut(self.ends, ends),
            }
        }
    }

    /// Reports chunk `k` made, with `kept` contacts at the front of its
    /// slots (written where its run goes if `in_place`), and moves every
    /// run that can now be moved.
    fn finished(&self, k: usize, kept: usize, in_place: bool) {
        let placed = if in_place { IN_PLACE } else { 0 };
        let elsewhere = std::thread::current().id() != self.leader;
        let placed = placed | if elsewhere { MADE_ELSEWHERE } else { 0 };
        // Sequentially consistent here and in `advance`: a maker that finds
        // `moving` taken must be sure the mover, on letting go, sees its
        // chunk ready (or the maker after it does).
        self.ready[k].store((kept + 1) | placed, Ordering::SeqCst);
        self.advance();
    }

    /// Moves runs in chunk order while the next chunk is ready, unless
    /// another thread is already moving them.
    fn advance(&self) {
        loop {
            let taken =
                self.moving
                    .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst);
            if taken.is_err() {
                return;
            }
            let mut k = self.next.load(Ordering::Relaxed);
            let mut end = self.end.load(Ordering::Relaxed);
            while let Some(ready) = self.ready.get(k) {
                let ready = ready.load(Ordering::SeqCst);
                let Some(kept) = ready_len(ready).checked_sub(1) else {
                    break;
                };
                let leave = left_to_move(ready, self.left.load(Ordering::Relaxed));
                if ready & IN_PLACE == 0 {
                    // SAFETY: source and destination lie in the buffer; the
                    // destination is below the source or is it, and covers
                    // only slots of chunks already moved or of chunk `k`,
                    // which is done (see the type's notes). `copy` allows
                    // the overlap.
                    unsafe {
                        let first = k * MANIFOLD_CHUNK;
                        if !leave {
                            std::ptr::copy(self.slots.add(first), self.slots.add(end), kept);
                        }
                        std::ptr::copy(self.ends.add(first), self.ends.add(end), kept);
                    };
                }
                if leave {
                    self.left.store(true, Ordering::Relaxed);
                }
                end += kept;
                k += 1;
            }
            self.end.store(end, Ordering::Relaxed);
            self.next.store(k, Ordering::Relaxed);
            self.moving.store(false, Ordering::SeqCst);
            // A chunk finished while this thread held `moving` could not
            // move itself: look again.
            let waiting = self
                .ready
                .get(k)
                .is_some_and(|r| r.load(Ordering::SeqCst) != 0);
            if !waiting {
                return;
            }
        }
    }

    /// Makes the moves still to make once every chunk is made, lists in
    /// `left` the runs of contacts left to move, in order, and returns how
    /// many contacts the runs hold.
    fn finish(self, left: &mut Vec<PendingRun>) -> usize {
        // Every maker has returned, so this thread holds no race.
        self.advance();
        debug_assert_eq!(self.next.load(Ordering::Relaxed), self.ready.len());
        left.clear();
        let (mut to, mut left_before) = (0, false);
        for (k, ready) in self.ready.iter().enumerate() {
            let ready = ready.load(Ordering::Relaxed);
            let len = ready_len(ready) - 1;
            // The same choice as `advance` made, in the same order.
            left_before |= left_to_move(ready, left_before);
            if left_before && ready & IN_PLACE == 0 && len > 0 {
                let from = k * MANIFOLD_CHUNK;
                left.push(PendingRun { from, to, len });
            }
            to += len;
        }
        debug_assert_eq!(to, self.end.load(Ordering::Relaxed));
        self.end.load(Ordering::Relaxed)
    }
}

/// What making one chunk's contacts reads.
struct ChunkFill<'a> {
    inputs: &'a ContactInputs<'a>,
    /// Last step's contacts among bodies that cannot move, sorted by pair.
    frozen: &'a [(Contact, ContactEnds)],
    any_sleeping: bool,
}

/// Where contacts are written: a slot for each and one for its ends, as
/// many of each.
struct Slots<'a> {
    contacts: &'a mut [MaybeUninit<Contact>],
    ends: &'a mut [MaybeUninit<ContactEnds>],
}

impl ChunkFill<'_> {
    /// Writes the contacts of `pairs` that have points, and their ends, into
    /// `slots` from slot `first` on (as many as there are pairs), with their
    /// warm starts read by `warm`, and what they came to into `result`.
    fn chunk<R: WarmReader>(
        &self,
        mut slots: Slots,
        first: usize,
        pairs: &[Pair],
        result: &mut ChunkResult,
        warm: &mut R,
    ) {
        let mut made = MadeContacts::new(&mut slots, first, warm, self.frozen, pairs);
        if self.inputs.batch_rounded {
            self.fill_batched(&mut made, pairs);
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
    /// [`ManifoldBatch`]). Worth it only when there are such pairs: circles
    /// alone pay for the extra pass.
    fn fill_batched<R: WarmReader>(&self, made: &mut MadeContacts<R>, pairs: &[Pair]) {
        let mut manifolds = [MaybeUninit::<ContactManifold>::uninit(); MANIFOLD_CHUNK];
        let manifolds = &mut manifolds[..pairs.len()];
        let mut fixed = [false; MANIFOLD_CHUNK];
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

/// Where a contact update runs, and where it finds last step's impulses.
pub(crate) enum UpdateOn<'a> {
    /// On the calling thread alone, reading last step's contacts in place;
    /// `spill` takes those written over before they are read (a slot per
    /// contact; see [`InPlaceReader`]).
    CallingThread {
        spill: &'a mut [MaybeUninit<WarmStart>],
    },
    /// Shared with the thread waiting on `board`, with last step's impulses
    /// copied aside into `warm` from a split on (see
    /// [`ContactSet::keep_warm_starts`]).
    Shared {
        warm: KeptWarmStarts<'a>,
        board: &'a HelperBoard,
    },
}

/// Last step's warm starts for an update shared between threads: those of
/// the contacts from `from` on copied into their slots, the slots below
/// free for the contacts read in place to spill into (see
/// [`ContactSet::make_shared`]).
pub(crate) struct KeptWarmStarts<'w> {
    slots: &'w mut [MaybeUninit<WarmStart>],
    from: usize,
}

/// Finds last step's impulses for new contacts that come in pair order.
trait WarmReader {
    /// Last step's warm start for the pair with key `key`, if it had a
    /// contact; `slots` are those the new contacts are written into.
    fn matching(&mut self, key: u64, slots: &[MaybeUninit<Contact>]) -> Option<WarmStart>;

    /// Called before slot `at` of `slots` is written.
    fn before_write(&mut self, at: usize, slots: &[MaybeUninit<Contact>]);
}

/// Reads last step's impulses from a copy, sorted by pair like the new
/// contacts, so one pass along it finds every match.
struct CopiedReader<'w> {
    previous: &'w [WarmStart],
    /// Where the pass is.
    next: usize,
}

impl CopiedReader<'_> {
    /// A reader for the contacts of `pairs` (the copy is searched once for
    /// where they begin).
    fn new<'w>(previous: &'w [WarmStart], pairs: &[Pair]) -> CopiedReader<'w> {
        let first = pairs.first().map_or(0, |p| pair_key(p.a, p.b));
        CopiedReader {
            previous,
            next: previous.partition_point(|p| p.key() < first),
        }
    }
}

impl WarmReader for CopiedReader<'_> {
    #[inline(always)]
    fn matching(&mut self, key: u64, _: &[MaybeUninit<Contact>]) -> Option<WarmStart> {
        let previous = self.previous;
        while self.next < previous.len() && previous[self.next].key() < key {
            self.next += 1;
        }
        previous
            .get(self.next)
            .filter(|old| old.key() == key)
            .copied()
    }

    #[inline(always)]
    fn before_write(&mut self, _: usize, _: &[MaybeUninit<Contact>]) {}
}

/// Reads last step's contacts below a split where they lie (see
/// [`InPlaceReader`]), and those from the split on from their copy (see
/// [`CopiedReader`]): the pairs come in order, so those before the first
/// copied contact's go to the first reader and the rest to the second.
struct SplitReader<'q, 'w> {
    in_place: InPlaceReader<'q>,
    copied: CopiedReader<'w>,
    /// The key of the first copied contact (none: every key is below).
    split_key: u64,
}

impl<'q, 'w> SplitReader<'q, 'w> {
    fn new(in_place: InPlaceReader<'q>, copied: &'w [WarmStart]) -> SplitReader<'q, 'w> {
        SplitReader {
            in_place,
            split_key: copied.first().map_or(u64::MAX, WarmStart::key),
            copied: CopiedReader {
                previous: copied,
                next: 0,
            },
        }
    }
}

impl WarmReader for SplitReader<'_, '_> {
    #[inline(always)]
    fn matching(&mut self, key: u64, slots: &[MaybeUninit<Contact>]) -> Option<WarmStart> {
        if key < self.split_key {
            self.in_place.matching(key, slots)
        } else {
            self.copied.matching(key, slots)
        }
    }

    #[inline(always)]
    fn before_write(&mut self, at: usize, slots: &[MaybeUninit<Contact>]) {
        self.in_place.before_write(at, slots);
    }
}

/// Reads last step's contacts where they lie, in the first slots of the
/// buffer the new contacts are written into front to back, one after the
/// other, on one thread. A contact is written where its pair's old one
/// lay, shifted by the contacts gained and lost before it, so while the
/// contacts hold steady most old ones are read before they are written
/// over; one that would be written over first (where more were gained than
/// lost before it) is moved to `spill` beforehand, as the warm start it
/// gives. This spares the copy of every contact's impulses before the
/// contacts are made.
///
/// The old contacts not yet read are then those spilled from `spill_head`
/// on, the ones below `unspilled`, followed by those in the buffer from
/// `unspilled` on: a slot is written only after every slot below it, so
/// when slot `at` is about to be written over an old contact not yet read,
/// every one below it not yet read was spilled, and `at` is the larger of
/// `next` and `unspilled`.
struct InPlaceReader<'q> {
    old_len: usize,
    /// The next old contact to read: its index in last step's list.
    next: usize,
    /// Old contacts below this index are spilled or read.
    unspilled: usize,
    spill: &'q mut [MaybeUninit<WarmStart>],
    spill_head: usize,
    spill_len: usize,
}

impl<'q> InPlaceReader<'q> {
    /// A reader of the `old_len` contacts in the first slots of the buffer.
    fn new(old_len: usize, spill: &'q mut [MaybeUninit<WarmStart>]) -> InPlaceReader<'q> {
        InPlaceReader {
            old_len,
            next: 0,
            unspilled: 0,
            spill,
            spill_head: 0,
            spill_len: 0,
        }
    }

    /// A reader of `old`, copied whole into `spill` now, before the list
    /// moves to another buffer.
    fn all_spilled(old: &[Contact], spill: &'q mut [MaybeUninit<WarmStart>]) -> InPlaceReader<'q> {
        for (slot, contact) in spill.iter_mut().zip(old) {
            slot.write(WarmStart::of(contact));
        }
        InPlaceReader {
            old_len: old.len(),
            next: 0,
            unspilled: old.len(),
            spill,
            spill_head: 0,
            spill_len: old.len(),
        }
    }

    /// The key of the next old contact (`next` must be below `old_len`).
    #[inline(always)]
    fn next_key(&self, slots: &[MaybeUninit<Contact>]) -> u64 {
        // SAFETY: below `unspilled` the next old contact is the first
        // spilled one not yet read, which was written; from `unspilled` on
        // it still lies in its slot, unwritten since last step.
        unsafe {
            if self.next < self.unspilled {
                self.spill[self.spill_head].assume_init_ref().key()
            } else {
                slots[self.next].assume_init_ref().key()
            }
        }
    }

    /// The warm start of the next old contact, which is then read.
    #[inline(always)]
    fn take(&mut self, slots: &[MaybeUninit<Contact>]) -> WarmStart {
        // SAFETY: as in `next_key`.
        let old = unsafe {
            if self.next < self.unspilled {
                self.spill_head += 1;
                *self.spill[self.spill_head - 1].assume_init_ref()
            } else {
                WarmStart::of(slots[self.next].assume_init_ref())
            }
        };
        self.next += 1;
        old
    }
}

impl WarmReader for InPlaceReader<'_> {
    #[inline(always)]
    fn matching(&mut self, key: u64, slots: &[MaybeUninit<Contact>]) -> Option<WarmStart> {
        while self.next < self.old_len {
            let old_key = self.next_key(slots);
            if old_key == key {
                return Some(self.take(slots));
            }
            if old_key > key {
                return None;
            }
            self.take(slots);
        }
        None
    }

    #[inline(always)]
    fn before_write(&mut self, at: usize, slots: &[MaybeUninit<Contact>]) {
        // Below `next` every old contact was read, and below `unspilled`
        // every one is read or spilled (all of them, when the list moved).
        if at < self.next.max(self.unspilled) || at >= self.old_len {
            return;
        }
        debug_assert_eq!(
            at,
            self.next.max(self.unspilled),
            "every slot below is written"
        );
        // SAFETY: `at` is at or above `next` and `unspilled` and below
        // `old_len`, so it holds an old contact not yet read or written over.
        let old = WarmStart::of(unsafe { slots[at].assume_init_ref() });
        self.spill[self.spill_len].write(old);
        self.spill_len += 1;
        self.unspilled = at + 1;
    }
}

/// Merges `extra` (contacts with their ends, sorted by pair, none of them
/// in `list`) into `list` and its `ends`, sorted by pair, in place. From the
/// back, the run of the list above each extra contact moves up as one
/// block, and the part below the lowest one stays where it is: a handful
/// of sleeping contacts then moves part of the list once, not every
/// contact one by one.
fn merge_sorted(
    list: &mut Vec<Contact>,
    ends: &mut Vec<ContactEnds>,
    extra: &[(Contact, ContactEnds)],
) {
    if extra.is_empty() {
        return;
    }
    let mut live = list.len();
    list.resize(live + extra.len(), Contact::NONE);
    ends.resize(live + extra.len(), ContactEnds::new([0, 0], 0));
    for (below, &(contact, end)) in extra.iter().enumerate().rev() {
        // `below` extra contacts still go under this one.
        let at = list[..live].partition_point(|c| c.key() < contact.key());
        list.copy_within(at..live, at + below + 1);
        ends.copy_within(at..live, at + below + 1);
        (list[at + below], ends[at + below]) = (contact, end);
        live = at;
    }
}

/// The step's views of a contact's two shapes.
#[inline]
fn views_of<'v>(contact: &Contact, views: &'v [StepCollider]) -> [&'v StepCollider; 2] {
    [contact.shape_a, contact.shape_b].map(|s| &views[s as usize])
}

/// Whether neither body of a contact can move this step. Read from the
/// step's views of its shapes, which are in cache while contacts are made
/// (a step with any sleeping body asks this of every contact).
fn is_frozen(contact: &Contact, views: &[StepCollider]) -> bool {
    let [a, b] = views_of(contact, views);
    !(a.moving || b.moving)
}

/// The sleeping body of a contact between a moving and a sleeping body,
/// from the step's views of its shapes.
fn sleeping_side(contact: &Contact, views: &[StepCollider]) -> Option<u32> {
    let [a, b] = views_of(contact, views);
    if a.sleeping && b.moving {
        Some(a.body)
    } else if b.sleeping && a.moving {
        Some(b.body)
    } else {
        None
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
        collide(&ca.shape, xf_a, &cb.shape, xf_b, reach)
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use std::mem::MaybeUninit;

    use super::{
        merge_sorted, Contact, ContactEnds, CopiedReader, InPlaceReader, PointImpulse, SplitReader,
        WarmReader, WarmStart,
    };
    use crate::scene::Scene;
    use crate::threading::Threading;

    proptest! {
        /// Last step's contacts read in place, while the new ones are
        /// written over them from the first slot on, give each new pair
        /// the warm start a copy made beforehand gives, however far the new
        /// list runs ahead of the old (each old contact is told apart by
        /// its impulse; a new one overwrites its slot with another). So do
        /// they read in place below a split and from a copy of the rest.
        #[test]
        fn reading_last_steps_contacts_in_place_finds_what_a_copy_finds(
            old in proptest::collection::btree_set((0u32..30, 0u32..30), 0..80),
            new in proptest::collection::btree_set((0u32..30, 0u32..30), 0..80),
            split_at in 0.0f64..=1.0,
        ) {
            let contact = |(a, b): (u32, u32), normal: f32| Contact {
                shape_a: a,
                shape_b: b,
                impulses: [PointImpulse { normal, tangent: 0.5 * normal }; 2],
                ..Contact::NONE
            };
            let old: Vec<Contact> = old
                .into_iter()
                .enumerate()
                .map(|(i, pair)| contact(pair, i as f32 + 1.0))
                .collect();
            let copy: Vec<WarmStart> = old.iter().map(WarmStart::of).collect();
            let split = (split_at * old.len() as f64) as usize;
            let slots = || {
                let mut slots = vec![MaybeUninit::<Contact>::uninit(); old.len().max(new.len())];
                for (slot, c) in slots.iter_mut().zip(&old) {
                    slot.write(*c);
                }
                slots
            };
            let (mut whole, mut parted) = (slots(), slots());
            let mut spill = vec![MaybeUninit::uninit(); old.len()];
            let mut in_place = InPlaceReader::new(old.len(), &mut spill);
            let mut part_spill = vec![MaybeUninit::uninit(); split];
            let in_place_part = InPlaceReader::new(split, &mut part_spill);
            let mut split_reader = SplitReader::new(in_place_part, &copy[split..]);
            let mut copied = CopiedReader { previous: &copy, next: 0 };
            let mut found = 0;
            for (at, &pair) in new.iter().enumerate() {
                let key = contact(pair, 0.0).key();
                let expected = copied.matching(key, &whole).map(|w| (w.key(), w.impulses));
                let read = in_place.matching(key, &whole).map(|w| (w.key(), w.impulses));
                prop_assert_eq!(read, expected, "pair {:?}", pair);
                let read = split_reader.matching(key, &parted).map(|w| (w.key(), w.impulses));
                prop_assert_eq!(read, expected, "pair {:?}, split at {}", pair, split);
                found += usize::from(expected.is_some());
                in_place.before_write(at, &whole);
                whole[at].write(contact(pair, -1.0));
                split_reader.before_write(at, &parted);
                parted[at].write(contact(pair, -1.0));
            }
            prop_assert!(in_place.spill_len <= old.len() && found <= old.len());
            prop_assert!(split_reader.in_place.spill_len <= split);
        }

        /// Merging gives the sorted union, each contact with its own ends.
        #[test]
        fn merging_sorted_contacts_gives_the_sorted_union(
            keys in proptest::collection::btree_set((0u32..60, 0u32..60), 0..80),
            picks in proptest::collection::vec(any::<bool>(), 80),
        ) {
            let with_ends = |&(a, b): &(u32, u32)| {
                let contact = Contact { shape_a: a, shape_b: b, ..Contact::NONE };
                (contact, ContactEnds::new([a + 100, b + 100], 1))
            };
            let all: Vec<_> = keys.iter().map(with_ends).collect();
            let (extra, kept): (Vec<_>, Vec<_>) =
                all.iter().zip(&picks).partition(|(_, &pick)| pick);
            let extra: Vec<_> = extra.into_iter().map(|(c, _)| *c).collect();
            let mut list: Vec<_> = kept.iter().map(|((c, _), _)| *c).collect();
            let mut ends: Vec<_> = kept.iter().map(|((_, e), _)| *e).collect();
            merge_sorted(&mut list, &mut ends, &extra);
            prop_assert_eq!(list.len(), all.len());
            for ((c, e), (want_c, want_e)) in list.iter().zip(&ends).zip(&all) {
                prop_assert_eq!(c.key(), want_c.key());
                prop_assert_eq!(*e, *want_e);
            }
        }
    }

    /// Asserts that two contact lists hold the same pairs, manifolds and
    /// impulses, in the same order.
    fn assert_same_contacts(a: &[super::Contact], b: &[super::Contact], step: usize) {
        assert_eq!(a.len(), b.len(), "step {step}");
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.key(), y.key(), "step {step}");
            assert_eq!(x.manifold, y.manifold, "step {step}");
            assert_eq!(x.impulses, y.impulses, "step {step}");
        }
    }

    /// Asserts that the world's contact ends list each contact's bodies
    /// (its shapes' owners) and point count, in contact order.
    fn assert_ends_follow(world: &crate::World, step: usize) {
        let (set, colliders) = (&world.contacts, &world.colliders);
        assert_eq!(set.ends().len(), set.as_slice().len(), "step {step}");
        for (ends, c) in set.ends().iter().zip(set.as_slice()) {
            let shape_bodies = [c.shape_a, c.shape_b].map(|s| colliders[s as usize].body);
            assert_eq!(ends.bodies(), shape_bodies, "step {step}");
            assert_eq!(ends.has_two_points(), c.manifold.count == 2, "step {step}");
        }
    }

    /// Steps `calling` on the calling thread and `shared` in `pool`, and
    /// checks that they made the same contacts, each with its ends.
    fn step_and_compare(
        calling: &mut crate::World,
        shared: &mut crate::World,
        pool: &rayon::ThreadPool,
        step: usize,
    ) {
        calling.step_with(Threading::Calling);
        pool.install(|| shared.step_with(Threading::Pool));
        let (a, b) = (calling.contacts.as_slice(), shared.contacts.as_slice());
        assert_same_contacts(a, b, step);
        assert_ends_follow(calling, step);
        assert_ends_follow(shared, step);
    }

    #[test]
    fn a_warm_start_finds_each_points_impulse_by_its_feature() {
        use carom_narrowphase::FeatureId;
        let (first, second, other) = (FeatureId::new(1, 0), FeatureId::new(0, 2), FeatureId(0));
        let impulses = [
            PointImpulse {
                normal: 2.0,
                tangent: 0.5,
            },
            PointImpulse {
                normal: 9.0,
                tangent: -1.0,
            },
        ];
        let mut contact = Contact {
            shape_a: 3,
            shape_b: 7,
            impulses,
            ..Contact::NONE
        };
        contact.manifold.points[0].id = first;
        contact.manifold.points[1].id = other;
        // One point: its own impulse, and nothing for the unused slot's id.
        contact.manifold.count = 1;
        let warm = WarmStart::of(&contact);
        assert_eq!(warm.key(), contact.key());
        assert_eq!(warm.impulse_of(first), Some(impulses[0]));
        assert_eq!(warm.impulse_of(other), None);
        // Two points: each its own.
        contact.manifold.points[1].id = second;
        contact.manifold.count = 2;
        let warm = WarmStart::of(&contact);
        assert_eq!(warm.impulse_of(first), Some(impulses[0]));
        assert_eq!(warm.impulse_of(second), Some(impulses[1]));
        assert_eq!(warm.impulse_of(other), None);
    }

    #[test]
    fn contacts_made_on_the_calling_thread_match_those_shared_out() {
        // Two copies of a landing pile, one making its contacts on the
        // calling thread (one chunk after another, written end to end over
        // last step's, which it reads for their impulses as it goes), the
        // other stepped in a pool of four threads, sharing the chunks out
        // (the first ones made in place one after the other, reading the
        // first third of last step's contacts where they lie; the others
        // from a copy of the rest, each into its own slots, its run moved
        // down as soon as the runs before it are in place, by whichever
        // thread gets there, or straight where its run goes when those runs
        // already are): same contacts, same impulses, step after step.
        // Halfway, a block of touching circles is dropped in, so that the
        // pairs outgrow the list's room.
        use crate::body::{BodyDef, Material};
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let mut calling = Scene::circle_pile(3_000).build_world().unwrap();
        let mut shared = Scene::circle_pile(3_000).build_world().unwrap();
        let (mut compared, mut pushing) = (0, 0);
        for step in 0..120 {
            if step == 90 {
                for world in [&mut calling, &mut shared] {
                    for k in 0..2_000 {
                        let (x, y) = ((k % 100) as f32 * 0.499, (k / 100) as f32 * 0.499);
                        let def = BodyDef::dynamic().position(x - 29.0, y + 22.0);
                        let ball = world.create_body(def).unwrap();
                        let disc = carom_shapes::Circle::new(glam::Vec2::ZERO, 0.25).unwrap();
                        world.add_shape(ball, disc, Material::default()).unwrap();
                    }
                }
            }
            step_and_compare(&mut calling, &mut shared, &pool, step);
            compared += calling.contacts.len();
            let contacts = calling.contacts.as_slice().iter();
            pushing += contacts.filter(|c| c.impulses[0].normal > 0.0).count();
        }
        assert!(compared > 10_000, "only {compared} contacts compared");
        // Enough of them carry an impulse into the next step for a missed
        // warm start to show.
        assert!(pushing > 10_000, "only {pushing} contacts pushing");
        // The calling thread read last step's contacts in place, spilling
        // some before writing over them as the pile's contacts grew, and
        // copied them all when the list moved to a larger buffer.
        let [one_by_one, moves] = calling.contacts.spill_counts;
        assert!(
            one_by_one > 0 && moves > 0,
            "spills {one_by_one}, moves {moves}"
        );
        // Shared, the first chunks were made in place and the rest from a
        // copy, and every contact was copied when the list moved.
        let [in_place, from_copy, all_copied] = shared.contacts.shared_counts;
        assert!(
            in_place > 0 && from_copy > 0 && all_copied > 0,
            "in place {in_place}, from the copy {from_copy}, all copied {all_copied}"
        );
    }

    #[test]
    fn frozen_contacts_come_back_in_place_the_same_on_the_calling_thread_and_shared() {
        // Two copies of a pile that falls asleep while a ball far off keeps
        // falling, so steps go on: one makes its contacts on the calling
        // thread, the other shares the chunks out in a pool of four. The
        // contacts among sleeping bodies are put back by the chunks where
        // their pairs come, or merged in after when the broadphase no
        // longer reports their pairs (as once the speculative distance
        // shrinks, for those of them with a gap); either way both lists
        // are the same, step after step, and both ways are taken.
        use crate::body::{BodyDef, Material};
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let pile = || {
            let mut world = Scene::circle_pile(400).build_world().unwrap();
            let ball = world
                .create_body(BodyDef::dynamic().position(1.0e4, 0.0))
                .unwrap();
            let disc = carom_shapes::Circle::new(glam::Vec2::ZERO, 0.5).unwrap();
            world.add_shape(ball, disc, Material::default()).unwrap();
            world
        };
        let (mut calling, mut shared) = (pile(), pile());
        let mut slept = false;
        for step in 0..900 {
            if step == 600 {
                for world in [&mut calling, &mut shared] {
                    let mut settings = *world.settings();
                    settings.speculative_distance = 0.002;
                    world.set_settings(settings).unwrap();
                }
            }
            step_and_compare(&mut calling, &mut shared, &pool, step);
            // Each pair once, in order, and every contact kept aside is back.
            let keys: Vec<u64> = calling
                .contacts
                .as_slice()
                .iter()
                .map(Contact::key)
                .collect();
            assert!(keys.windows(2).all(|k| k[0] < k[1]), "step {step}");
            for (c, _) in &calling.contacts.frozen {
                assert!(
                    calling.contacts.contains_pair(c.shape_a, c.shape_b),
                    "step {step}"
                );
            }
            slept |= calling.stats().sleeping_bodies > 0;
        }
        assert!(slept, "the pile never slept");
        for world in [&calling, &shared] {
            let [put_back, merged] = world.contacts.frozen_counts;
            assert!(
                put_back > 0 && merged > 0,
                "put back {put_back}, merged {merged}"
            );
        }
    }

    #[test]
    fn the_world_counts_its_stadiums_as_shapes_come_and_go() {
        // The count only chooses how pairs are computed (the contacts are
        // the same either way, see below), but it must not drift.
        use crate::body::{BodyDef, Material};
        use crate::settings::WorldSettings;
        use crate::world::World;
        use carom_shapes::{Circle, Stadium};
        use glam::Vec2;
        let mut world = World::new(WorldSettings::default()).unwrap();
        let stadium = || Stadium::new(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.2).unwrap();
        let log = world.create_body(BodyDef::dynamic()).unwrap();
        world
            .add_shape(log, stadium(), Material::default())
            .unwrap();
        world
            .add_shape(log, stadium(), Material::default())
            .unwrap();
        let ball = world
            .create_body(BodyDef::dynamic().position(3.0, 0.0))
            .unwrap();
        let circle = Circle::new(Vec2::ZERO, 0.3).unwrap();
        world.add_shape(ball, circle, Material::default()).unwrap();
        assert_eq!(world.stadiums, 2);
        world.remove_body(ball).unwrap();
        assert_eq!(world.stadiums, 2);
        world.remove_body(log).unwrap();
        assert_eq!(world.stadiums, 0);
    }

    #[test]
    fn capsule_contacts_come_out_the_same_batched_or_one_at_a_time() {
        // The capsules scene twice: one world computes its rounded-segment
        // pairs eight at a time, the other (told it has no stadiums) one at
        // a time. Same contacts and impulses, step after step, through the
        // landing and the settling.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/capsules.ron");
        let scene = Scene::load(path).unwrap();
        let mut batched = scene.build_world().unwrap();
        let mut single = scene.build_world().unwrap();
        assert!(batched.stadiums > 0);
        single.stadiums = 0;
        let mut two_point = 0;
        for step in 0..240 {
            batched.step_with(Threading::Calling);
            single.step_with(Threading::Calling);
            let (a, b) = (batched.contacts.as_slice(), single.contacts.as_slice());
            assert_same_contacts(a, b, step);
            assert_ends_follow(&batched, step);
            two_point += a.iter().filter(|c| c.manifold.count == 2).count();
        }
        assert!(two_point > 10_000, "only {two_point} two-point contacts");
    }

    #[test]
    fn the_contact_list_holds_each_pair_with_points_once_in_pair_order() {
        // A landing pile: many near pairs have no reachable point, and the
        // pairs with points are spread over every chunk of pairs.
        let mut world = Scene::circle_pile(3_000).build_world().unwrap();
        let mut left_out = 0;
        for _ in 0..90 {
            world.step();
            let contacts = world.contacts.as_slice();
            assert!(contacts.iter().all(|c| !c.manifold.is_empty()));
            assert!(contacts.windows(2).all(|w| w[0].key() < w[1].key()));
            let stats = world.stats();
            assert_eq!(stats.manifolds, contacts.len());
            left_out += stats.pairs - stats.manifolds;
        }
        assert!(left_out > 0, "no pair was left without a point");
    }

    #[test]
    fn contacts_kept_aside_are_searched_again_only_when_the_bodies_change() {
        // A pile and a lone ball on a floor of its own fall asleep while a
        // ball far off keeps falling, so steps go on, and their frozen
        // contacts are then kept from step to step. Waking the lone ball by
        // hand, and then a ball landing on the pile, which wakes it, each
        // make them be searched for again while other bodies sleep.
        // (Wherever they are kept, a debug build checks them against a
        // fresh search.)
        use crate::body::{BodyDef, Material};
        let mut world = Scene::circle_pile(400).build_world().unwrap();
        let disc = carom_shapes::Circle::new(glam::Vec2::ZERO, 0.25).unwrap();
        let floor = world
            .create_body(BodyDef::fixed().position(500.0, 0.0))
            .unwrap();
        let plank =
            carom_shapes::Segment::new(glam::Vec2::new(-2.0, 0.0), glam::Vec2::new(2.0, 0.0))
                .unwrap();
        world.add_shape(floor, plank, Material::default()).unwrap();
        let lone = world
            .create_body(BodyDef::dynamic().position(500.0, 0.25))
            .unwrap();
        world.add_shape(lone, disc, Material::default()).unwrap();
        // Every body but the box's walls and the floor.
        let circles = world.body_count() - 2;
        let far = world
            .create_body(BodyDef::dynamic().position(1.0e4, 0.0))
            .unwrap();
        world.add_shape(far, disc, Material::default()).unwrap();
        let sleep = |world: &mut crate::World| {
            for _ in 0..3_000 {
                if world.stats().sleeping_bodies == circles {
                    break;
                }
                world.step();
            }
            assert_eq!(
                world.stats().sleeping_bodies,
                circles,
                "the pile never slept"
            );
            let mut kept_steps = 0;
            for _ in 0..10 {
                kept_steps += usize::from(world.contacts.frozen_current);
                world.step();
            }
            assert!(
                kept_steps >= 9,
                "frozen contacts kept in {kept_steps} of 10 steps"
            );
        };
        sleep(&mut world);
        world.wake_body(lone).unwrap();
        for _ in 0..3 {
            world.step();
            assert_eq!(world.stats().sleeping_bodies, circles - 1);
        }
        sleep(&mut world);
        let ball = world
            .create_body(BodyDef::dynamic().position(0.0, 25.0))
            .unwrap();
        world.add_shape(ball, disc, Material::default()).unwrap();
        let mut woke = false;
        for _ in 0..600 {
            world.step();
            if world.stats().sleeping_bodies < circles {
                woke = true;
                assert!(!world.contacts.frozen_current);
                break;
            }
        }
        assert!(woke, "the ball never woke the pile");
        for _ in 0..30 {
            world.step();
        }
    }
}

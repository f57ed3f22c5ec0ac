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

mod chunk;
mod moves;
#[cfg(test)]
mod tests;
mod warm;

use std::mem::MaybeUninit;
use std::sync::atomic::AtomicUsize;

use carom_narrowphase::ContactManifold;

use rayon::prelude::*;

use crate::broadphase::Pair;
use crate::buffer::{assume_written, refill};
use crate::collider::StepCollider;
use crate::threading::{share_slots_after, HelperBoard, Threading};

pub(crate) use chunk::ContactInputs;
use chunk::{ChunkFill, Slots};
use moves::{InOrderMoves, PendingMoves, PendingRun};
pub(crate) use warm::WarmStart;
use warm::{CopiedReader, InPlaceReader, KeptWarmStarts, SplitReader};

/// Pairs handed to one task when computing manifolds. Each task searches
/// last step's copied impulses for where its pairs begin, is claimed and
/// reports its run to the moves (see `moves`): on two threads, chunks of
/// 1,024 pairs made the hopper's contacts 5 % faster than chunks of 256,
/// and 512 or 2,048 less so (two threads, A-B-B-A runs).
const MANIFOLD_CHUNK: usize = 1024;

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
    /// chunks made from the copy alone, updates that copied every contact
    /// because the list moved, and updates that made chunks both ways.
    #[cfg(test)]
    shared_counts: [usize; 4],
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
            self.shared_counts[3] += usize::from(run_chunks > 0 && run_chunks < chunks);
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
        let (old_len, all_pairs) = (split + copied.len(), pairs.len().max(1));
        share_slots_after(Some(board), in_place_run, shared_results, |t, result| {
            let k = run_chunks + t;
            let pairs = &pairs[k * MANIFOLD_CHUNK..pairs.len().min((k + 1) * MANIFOLD_CHUNK)];
            // SAFETY: each chunk is made once, so until it is reported
            // finished its slots are its own.
            let (slots, in_place) = unsafe { moves.chunk_slots(k, pairs.len()) };
            // Where the chunk's first pair would lie among last step's
            // contacts were the two lists alike, less those read in place
            // (in 64 bits: the product outgrows 32).
            let scaled = (k * MANIFOLD_CHUNK) as u64 * old_len as u64 / all_pairs as u64;
            let guess = (scaled as usize).saturating_sub(split);
            let mut reader = CopiedReader::new(copied, pairs, guess);
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

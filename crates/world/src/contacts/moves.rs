//! Moving each chunk's run of new contacts down to follow the previous
//! chunk's, as soon as both are made, when chunks are made on several
//! threads into slots of their own.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::chunk::Slots;
use super::{Contact, ContactEnds, MANIFOLD_CHUNK};

/// A run of contacts made in a chunk's own slots, still to move down to
/// where its run goes.
#[derive(Debug, Clone, Copy)]
pub(super) struct PendingRun {
    from: usize,
    to: usize,
    len: usize,
}

/// The moves of contacts an update left to make (see
/// [`ContactSet::ends_and_moves`](super::ContactSet::ends_and_moves)):
/// the contacts cannot be read until [`PendingMoves::make`] has made them.
#[must_use = "the contacts cannot be read until the moves are made"]
pub(crate) struct PendingMoves<'a> {
    pub(super) contacts: &'a mut Vec<Contact>,
    pub(super) runs: &'a mut Vec<PendingRun>,
    /// How many contacts the list holds once the runs are in place.
    pub(super) len: usize,
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
pub(super) struct InOrderMoves<'a> {
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
    pub(super) fn new(slots: Slots<'a>, ready: &'a mut [AtomicUsize]) -> Self {
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
    pub(super) unsafe fn chunk_slots(&self, k: usize, len: usize) -> (Slots<'_>, bool) {
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
    /// first (see
    /// [`ContactSet::make_shared`](super::ContactSet::make_shared)).
    ///
    /// # Safety
    /// Only one holder, which must drop them before any of its chunks is
    /// reported finished; no other chunk's slots may lie below `contacts`
    /// or `ends`.
    pub(super) unsafe fn front_slots(&self, contacts: usize, ends: usize) -> Slots<'_> {
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
    pub(super) fn finished(&self, k: usize, kept: usize, in_place: bool) {
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
    pub(super) fn finish(self, left: &mut Vec<PendingRun>) -> usize {
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

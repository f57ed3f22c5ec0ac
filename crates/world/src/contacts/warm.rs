//! Last step's impulses for the new contacts: what warm starting keeps
//! of a contact, and the readers that find it for each new pair, from a
//! copy or from last step's contacts where they lie.

use std::mem::MaybeUninit;

use carom_narrowphase::FeatureId;

use crate::broadphase::Pair;

use super::{pair_key, Contact, PointImpulse};

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
    pub(super) fn of(contact: &Contact) -> WarmStart {
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
    pub(super) fn key(&self) -> u64 {
        pair_key(self.shapes[0], self.shapes[1])
    }

    /// The impulse kept for the point with feature `id`, if any.
    pub(super) fn impulse_of(&self, id: FeatureId) -> Option<PointImpulse> {
        self.ids
            .iter()
            .position(|&i| i == id)
            .map(|k| self.impulses[k])
    }
}

/// Last step's warm starts for an update shared between threads: those of
/// the contacts from `from` on copied into their slots, the slots below
/// free for the contacts read in place to spill into (see
/// [`ContactSet::make_shared`](super::ContactSet::make_shared)).
pub(crate) struct KeptWarmStarts<'w> {
    pub(super) slots: &'w mut [MaybeUninit<WarmStart>],
    pub(super) from: usize,
}

/// Finds last step's impulses for new contacts that come in pair order.
pub(super) trait WarmReader {
    /// Last step's warm start for the pair with key `key`, if it had a
    /// contact; `slots` are those the new contacts are written into.
    fn matching(&mut self, key: u64, slots: &[MaybeUninit<Contact>]) -> Option<WarmStart>;

    /// Called before slot `at` of `slots` is written.
    fn before_write(&mut self, at: usize, slots: &[MaybeUninit<Contact>]);
}

/// Reads last step's impulses from a copy, sorted by pair like the new
/// contacts, so one pass along it finds every match.
pub(super) struct CopiedReader<'w> {
    previous: &'w [WarmStart],
    /// Where the pass is.
    next: usize,
}

impl CopiedReader<'_> {
    /// A reader for the contacts of `pairs`. The copy is searched once for
    /// where they begin, outwards from `guess`: a list of pairs changes
    /// little from step to step, so a chunk's first pair is most often
    /// within a few entries of where its place in the new list says, and
    /// a search that starts there reads a cache line or two rather than
    /// some fourteen spread over the whole copy.
    pub(super) fn new<'w>(
        previous: &'w [WarmStart],
        pairs: &[Pair],
        guess: usize,
    ) -> CopiedReader<'w> {
        let first = pairs.first().map_or(0, |p| pair_key(p.a, p.b));
        CopiedReader {
            previous,
            next: partition_point_near(previous, guess, |p| p.key() < first),
        }
    }
}

/// `items.partition_point(below)`, found by galloping out from `guess`
/// (any index) to a bracket and searching within it: `O(log d)` probes,
/// `d` being how far the answer lies from the guess.
fn partition_point_near<T>(items: &[T], guess: usize, below: impl Fn(&T) -> bool) -> usize {
    let n = items.len();
    let guess = guess.min(n);
    // The answer lies in `lo..=hi`.
    let (mut lo, mut hi) = (0, n);
    let mut step = 1;
    if guess < n && below(&items[guess]) {
        lo = guess + 1;
        while let Some(probe) = guess.checked_add(step).filter(|&p| p < n) {
            if !below(&items[probe]) {
                hi = probe;
                break;
            }
            lo = probe + 1;
            step *= 2;
        }
    } else {
        hi = guess;
        while let Some(probe) = guess.checked_sub(step) {
            if below(&items[probe]) {
                lo = probe + 1;
                break;
            }
            hi = probe;
            step *= 2;
        }
    }
    lo + items[lo..hi].partition_point(below)
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
pub(super) struct SplitReader<'q, 'w> {
    in_place: InPlaceReader<'q>,
    copied: CopiedReader<'w>,
    /// The key of the first copied contact (none: every key is below).
    split_key: u64,
}

impl<'q, 'w> SplitReader<'q, 'w> {
    pub(super) fn new(in_place: InPlaceReader<'q>, copied: &'w [WarmStart]) -> SplitReader<'q, 'w> {
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
pub(super) struct InPlaceReader<'q> {
    old_len: usize,
    /// The next old contact to read: its index in last step's list.
    next: usize,
    /// Old contacts below this index are spilled or read.
    unspilled: usize,
    spill: &'q mut [MaybeUninit<WarmStart>],
    spill_head: usize,
    pub(super) spill_len: usize,
}

impl<'q> InPlaceReader<'q> {
    /// A reader of the `old_len` contacts in the first slots of the buffer.
    pub(super) fn new(
        old_len: usize,
        spill: &'q mut [MaybeUninit<WarmStart>],
    ) -> InPlaceReader<'q> {
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
    pub(super) fn all_spilled(
        old: &[Contact],
        spill: &'q mut [MaybeUninit<WarmStart>],
    ) -> InPlaceReader<'q> {
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

#[cfg(test)]
mod tests {
    use std::mem::MaybeUninit;

    use proptest::prelude::*;

    use super::{CopiedReader, InPlaceReader, SplitReader, WarmReader, WarmStart};
    use crate::contacts::{Contact, PointImpulse};

    proptest! {
        /// Galloping out from any guess finds the same place as a search
        /// of the whole list.
        #[test]
        fn a_search_from_a_guess_finds_the_partition_point(
            mut keys in proptest::collection::vec(0u32..500, 0..200),
            key in 0u32..520,
            guess in 0usize..260,
        ) {
            keys.sort_unstable();
            let below = |k: &u32| *k < key;
            prop_assert_eq!(
                super::partition_point_near(&keys, guess, below),
                keys.partition_point(below)
            );
        }

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
    }
}

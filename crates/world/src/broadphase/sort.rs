//! Keeping the pairs sorted by `(a, b)`: linear counting sorts of a full
//! search's pairs, on one thread or two, and an in-place merge of a
//! search's new pairs into the kept ones.

use std::mem::MaybeUninit;

use crate::buffer::{assume_written, refill, resize_to_overwrite, zeroed};
use crate::threading::{share_each, HelperBoard};

use super::search::ChunkBuffers;
use super::Pair;

/// Makes the pairs found by a full search, in `chunks`, the kept pairs
/// `kept`, sorted (see [`sort_pairs`]; with a `helper` board, the sort is
/// shared, see [`sort_pairs_shared`]).
pub(super) fn keep_found(
    chunks: &[ChunkBuffers],
    shapes: usize,
    slots: SortSlots,
    kept: &mut Vec<Pair>,
    helper: Option<&HelperBoard>,
) {
    // Later steps merge into the kept pairs in place, and while a pile
    // settles they come to outnumber this step's. Growing the list then
    // would copy it whole, briefly holding it twice (the peak memory of a
    // 100,000-body pile), so it is given room for twice as many now: room
    // never written is never made resident.
    let count = slots.by_b.len();
    if kept.capacity() < count {
        refill(kept, 2 * count);
    }
    match helper {
        Some(board) => sort_pairs_shared(chunks, shapes, slots, kept, board),
        None => sort_pairs(chunks, shapes, slots, kept),
    }
}

/// [`sort_pairs`] on two threads, with four counts per shape in `slots`
/// and at least as many pairs as shapes. The chunks are cut in two halves
/// of about as many pairs. Each half counts its pairs per `b` and per `a`
/// (the latter apart for the pairs whose `b` is below `shapes / 2` and for
/// the others; the second half keeps these two counts per shape in the
/// slots of `by_b`, not yet written); then one pass turns the counts into
/// where each half's run of each shape begins. Each half then places its
/// pairs by `b`, its run of a shape right after the other half's when it
/// comes second; and the pairs by `b` are placed by `a` in two halves
/// again, those with a low `b` (which come first) and the others. The
/// result is the one sorted list, on any thread.
fn sort_pairs_shared(
    chunks: &[ChunkBuffers],
    shapes: usize,
    slots: SortSlots,
    out: &mut Vec<Pair>,
    board: &HelperBoard,
) {
    let SortSlots { starts, by_b } = slots;
    assert_eq!(starts.len(), 4 * shapes, "four counts per shape");
    let total: usize = chunks.iter().map(|c| c.pairs.len()).sum();
    assert_eq!(by_b.len(), total, "one slot per pair");
    assert!(
        total >= shapes,
        "room in the pairs' slots for two counts per shape"
    );
    let mut before = 0;
    let cut = chunks
        .iter()
        .position(|c| {
            before += c.pairs.len();
            2 * before >= total
        })
        .map_or(chunks.len(), |k| k + 1);
    let halves = chunks.split_at(cut);
    let low_b = (shapes / 2) as u32;
    let (front_b, rest) = starts.split_at_mut(shapes);
    let (back_b, front_a) = rest.split_at_mut(shapes);
    // SAFETY: `by_b` has at least `shapes` slots of two `u32`s each, as
    // aligned, and nothing reads or writes them until the pairs are placed
    // by `b` (which writes over these counts once they are read).
    let back_a = unsafe { std::slice::from_raw_parts_mut(by_b.as_mut_ptr().cast(), 2 * shapes) };
    let count = |(chunks, by_b, by_a)| count_half(chunks, by_b, by_a, low_b);
    let failed = "a half of the pairs' sort failed on another thread";
    let inputs = [(halves.0, front_b, front_a), (halves.1, back_b, back_a)];
    let [(front_b, front_a), (back_b, back_a)] = share_each(Some(board), inputs, count, failed);
    // By `b`: each shape's run holds the front half's pairs, then the
    // back half's; the pairs with a low `b` end where `low_b`'s run begins.
    let counted = begin_runs_of_halves(front_b, back_b);
    assert_eq!(counted, total, "the halves count every pair");
    let low_total = front_b[low_b as usize];
    // By `a`: each shape's run holds the pairs with a low `b`, then the
    // others (the front half's counts become the two runs' starts).
    let (low_a, high_a) = front_a.split_at_mut(shapes);
    let (back_low_a, back_high_a) = back_a.split_at(shapes);
    let mut run = 0;
    for a in 0..shapes {
        let low = low_a[a] + back_low_a[a];
        let high = high_a[a] + back_high_a[a];
        low_a[a] = run;
        high_a[a] = run + low;
        run += low + high;
    }
    let by_b_slots = PairSlots(by_b.as_mut_ptr().cast());
    // The second half's counts by `a`, read above, are written over now.
    let place_by_b = |(chunks, cursors): (&[ChunkBuffers], &mut [u32])| {
        let pairs = chunks.iter().flat_map(|c| c.pairs.iter().copied());
        // SAFETY: the cursors of the two halves mark disjoint runs of
        // `by_b`, each as long as its half has pairs of that shape.
        unsafe { place_runs(pairs, cursors, |p| p.b, by_b_slots.first()) };
    };
    let inputs = [(halves.0, front_b), (halves.1, back_b)];
    share_each(Some(board), inputs, place_by_b, failed);
    // SAFETY: the runs cover every slot, so each was written once.
    let by_b = unsafe { assume_written(by_b) };
    let (low, high) = by_b.split_at(low_total as usize);
    resize_to_overwrite(out, total, Pair { a: 0, b: 0 });
    let out_slots = PairSlots(out.as_mut_ptr());
    let place_by_a = |(pairs, cursors): (&[Pair], &mut [u32])| {
        // SAFETY: as above, for the pairs with a low `b` and the others.
        unsafe { place_runs(pairs.iter().copied(), cursors, |p| p.a, out_slots.first()) };
    };
    share_each(
        Some(board),
        [(low, low_a), (high, high_a)],
        place_by_a,
        failed,
    );
}

/// Counts the pairs of `chunks` per `b` into `by_b` (one count per
/// shape), and per `a` into `by_a` (two per shape: those of the pairs
/// whose `b` is below `low_b`, then those of the others). Returns the
/// counts.
fn count_half<'c>(
    chunks: &[ChunkBuffers],
    by_b: &'c mut [MaybeUninit<u32>],
    by_a: &'c mut [MaybeUninit<u32>],
    low_b: u32,
) -> (&'c mut [u32], &'c mut [u32]) {
    let shapes = by_b.len();
    assert_eq!(by_a.len(), 2 * shapes, "two counts per shape by `a`");
    let (by_b, by_a) = (zeroed(by_b), zeroed(by_a));
    for pair in chunks.iter().flat_map(|c| &c.pairs) {
        by_b[pair.b as usize] += 1;
        let high = usize::from(pair.b >= low_b);
        by_a[high * shapes + pair.a as usize] += 1;
    }
    (by_b, by_a)
}

/// Where two threads place pairs, each into runs of its own.
struct PairSlots(*mut Pair);

// SAFETY: the threads' runs are disjoint (see `sort_pairs_shared`).
unsafe impl Sync for PairSlots {}

impl PairSlots {
    /// The first slot (a method, so that closures take the whole).
    fn first(&self) -> *mut Pair {
        self.0
    }
}

/// Gathers the chunks' pairs into `out`, sorted by `(a, b)`: a counting
/// sort by `b` into `by_b`, then a stable one by `a` into `out` (`starts`
/// holds the two sorts' counts). Linear in the pairs and shapes and free of
/// data-dependent branches, where a comparison sort is neither.
fn sort_pairs(chunks: &[ChunkBuffers], shapes: usize, slots: SortSlots, out: &mut Vec<Pair>) {
    let SortSlots { starts, by_b } = slots;
    assert_eq!(starts.len(), 2 * shapes, "two counts per shape");
    let starts = zeroed(starts);
    let (starts_b, starts_a) = starts.split_at_mut(shapes);
    let pairs = || chunks.iter().flat_map(|c| c.pairs.iter().copied());
    // Counted with bounds checks, so that past this loop every pair's
    // shapes are known to have a count.
    for pair in pairs() {
        starts_a[pair.a as usize] += 1;
        starts_b[pair.b as usize] += 1;
    }
    let total = begin_runs(starts_b);
    assert_eq!(begin_runs(starts_a), total, "both sorts count every pair");
    assert_eq!(by_b.len(), total, "one slot per pair");
    // SAFETY: `by_b` has a slot per pair, and the runs were counted from
    // these very pairs.
    unsafe { place_runs(pairs(), starts_b, |p| p.b, by_b.as_mut_ptr().cast()) };
    // SAFETY: the runs cover every slot, so each was written once.
    let by_b = unsafe { assume_written(by_b) };
    resize_to_overwrite(out, total, Pair { a: 0, b: 0 });
    // SAFETY: as above, for the same pairs sorted by `b`.
    unsafe { place_runs(by_b.iter().copied(), starts_a, |p| p.a, out.as_mut_ptr()) };
}

/// Turns per-shape counts into where each shape's run begins; returns the
/// sum of the counts.
fn begin_runs(counts: &mut [u32]) -> usize {
    let mut sum = 0;
    for count in counts.iter_mut() {
        let n = *count;
        *count = sum;
        sum += n;
    }
    sum as usize
}

/// Turns the counts of two halves of the items, per key, into where each
/// half's run of each key begins: a key's run holds the front half's items,
/// then the back half's. Returns the sum of the counts.
pub(super) fn begin_runs_of_halves(front: &mut [u32], back: &mut [u32]) -> usize {
    assert_eq!(front.len(), back.len(), "a count per key in each half");
    let mut sum = 0;
    for (f, b) in front.iter_mut().zip(back.iter_mut()) {
        let (in_front, in_back) = (*f, *b);
        *f = sum;
        *b = sum + in_front;
        sum += in_front + in_back;
    }
    sum as usize
}

/// One pass of a stable counting sort: writes each of `pairs` into `to` at
/// the cursor of its shape (which `key` picks), advancing the cursor.
/// Unchecked, as the counts already bound every index: the checks cost a
/// sixth of the sort.
///
/// # Safety
/// Every key must index `cursors`, which must hold where each shape's run
/// begins in `to`, each run as long as `pairs` has pairs of that shape;
/// `to` must be valid for writes of as many pairs as `pairs` yields.
unsafe fn place_runs(
    pairs: impl Iterator<Item = Pair>,
    cursors: &mut [u32],
    key: impl Fn(Pair) -> u32,
    to: *mut Pair,
) {
    for pair in pairs {
        // SAFETY: the caller's guarantee.
        unsafe {
            let at = cursors.get_unchecked_mut(key(pair) as usize);
            to.add(*at as usize).write(pair);
            *at += 1;
        }
    }
}

/// The memory [`sort_pairs`] works in, each slot to be overwritten.
pub(super) struct SortSlots<'a> {
    /// Two counts per shape.
    pub(super) starts: &'a mut [MaybeUninit<u32>],
    /// One slot per pair, for the pairs sorted by `b`.
    pub(super) by_b: &'a mut [MaybeUninit<Pair>],
}

/// Merges the sorted, duplicate-free `found` into the sorted `pairs` in
/// place, dropping the pairs that `retain` rejects unless they were found
/// again.
///
/// The merge runs from the back: `pairs` grows by `found.len()` and the
/// result is written from the new end down, then moved to the front. The
/// write position never falls below the next pair to read (it leads by the
/// found pairs still to place plus the pairs dropped so far), so no second
/// list of pairs is needed.
pub(super) fn merge_in_place(pairs: &mut Vec<Pair>, found: &[Pair], retain: impl Fn(Pair) -> bool) {
    let mut read = pairs.len();
    pairs.resize(read + found.len(), Pair { a: 0, b: 0 });
    let mut write = pairs.len();
    let mut found = found.iter().rev().copied().peekable();
    while read > 0 {
        read -= 1;
        let pair = pairs[read];
        while let Some(f) = found.next_if(|f| *f > pair) {
            write -= 1;
            pairs[write] = f;
        }
        if found.next_if_eq(&pair).is_some() || retain(pair) {
            write -= 1;
            pairs[write] = pair;
        }
    }
    for f in found {
        write -= 1;
        pairs[write] = f;
    }
    pairs.copy_within(write.., 0);
    pairs.truncate(pairs.len() - write);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{merge_in_place, sort_pairs, sort_pairs_shared, SortSlots};
    use crate::broadphase::search::ChunkBuffers;
    use crate::broadphase::Pair;
    use crate::buffer::SharedScratch;
    use crate::threading::HelperBoard;

    /// A sorted, duplicate-free list of pairs over a few shapes.
    fn pair_list(max_len: usize) -> impl Strategy<Value = Vec<Pair>> {
        prop::collection::btree_set((0u32..12, 0u32..12), 0..max_len)
            .prop_map(|set| set.into_iter().map(|(a, b)| Pair { a, b }).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// Merging in place gives the sorted union of the retained kept
        /// pairs and the found ones, each once, and hands every pair of it
        /// over, last first.
        #[test]
        fn merging_in_place_gives_the_sorted_union(
            kept in pair_list(60),
            found in pair_list(20),
            dropped_b in 0u32..12,
        ) {
            let retain = |p: Pair| p.b != dropped_b;
            let mut expected: Vec<Pair> = kept.iter().copied().filter(|&p| retain(p)).collect();
            expected.extend(&found);
            expected.sort_unstable();
            expected.dedup();

            let mut pairs = kept.clone();
            merge_in_place(&mut pairs, &found, retain);
            prop_assert_eq!(&pairs, &expected);
        }

        /// Pairs spread over chunks in any order come out sorted, each
        /// once, whatever the chunks' sizes.
        #[test]
        fn sorting_the_chunks_pairs_gives_them_in_order(
            pairs in pair_list(80).prop_shuffle(),
            cuts in prop::collection::vec(0usize..80, 0..6),
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(pairs.len())).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut begin = 0;
            for end in cuts.into_iter().chain([pairs.len()]) {
                chunks.push(ChunkBuffers { pairs: pairs[begin..end].to_vec(), scratch: Vec::new() });
                begin = end;
            }
            let mut expected = pairs.clone();
            expected.sort_unstable();

            let mut scratch = SharedScratch::default();
            let (starts, by_b) = scratch.lend_two(2 * 12, pairs.len());
            let mut out = vec![Pair { a: 5, b: 5 }];
            sort_pairs(&chunks, 12, SortSlots { starts, by_b }, &mut out);
            prop_assert_eq!(&out, &expected);

            // Shared with a helper on another thread (given at least as
            // many pairs as shapes), the same list.
            if pairs.len() >= 12 {
                let (starts, by_b) = scratch.lend_two(4 * 12, pairs.len());
                let mut shared = vec![Pair { a: 5, b: 5 }];
                let board = HelperBoard::default();
                std::thread::scope(|scope| {
                    let _close = board.closer();
                    scope.spawn(|| board.help());
                    let slots = SortSlots { starts, by_b };
                    sort_pairs_shared(&chunks, 12, slots, &mut shared, &board);
                });
                prop_assert_eq!(shared, expected);
            }
        }
    }
}

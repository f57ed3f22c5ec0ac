//! Step buffers: arrays refilled every step, kept between steps so that a
//! step allocates nothing once sizes settle.
//!
//! When such a buffer must grow, its old items are about to be overwritten,
//! so it is freed and replaced by a new one rather than grown: growing a
//! `Vec` doubles its capacity and copies the whole old buffer (for types
//! aligned beyond 16 bytes the allocator cannot remap it), which for the
//! largest buffers of a 100,000-body step briefly holds both copies. The new
//! buffer has a quarter more room than asked: while a pile settles its
//! counts creep up step after step, and replacing a buffer at each small
//! rise leaves freed blocks behind that the allocator cannot hand back.
//! Measured at 100,000 circles: peak memory 134.9 MB sized exactly, 128.6
//! MB with an eighth more, 125.7 MB with a quarter, 126.0 MB with a half.
//!
//! Buffers needed in only part of a step share one [`SharedScratch`]: each
//! phase takes a [`Room`] of it and splits that into typed runs of slots.

use std::mem::MaybeUninit;

/// Empties `v` and makes room for at least `len` items.
pub(crate) fn refill<T>(v: &mut Vec<T>, len: usize) {
    v.clear();
    if v.capacity() < len {
        *v = Vec::new();
        v.reserve_exact(len + len / 4);
        // Only what is asked for: the headroom may never be touched, and a
        // huge page is made resident whole.
        advise_huge_pages(v.as_ptr().cast(), len * size_of::<T>());
    }
}

/// Makes room in `v` for exactly `more` items beyond its length, to be
/// filled soon, backed by huge pages where it spans whole ones (see
/// [`advise_huge_pages`]).
pub(crate) fn reserve_filled_soon<T>(v: &mut Vec<T>, more: usize) {
    v.reserve_exact(more);
    // `reserve_exact` succeeded, so this neither overflows nor exceeds the
    // capacity.
    advise_huge_pages(v.as_ptr().cast(), (v.len() + more) * size_of::<T>());
}

/// Bytes of a huge page (x86-64 and most 64-bit ARM kernels).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const HUGE_PAGE: usize = 2 << 20;

/// The whole huge pages within `bytes` bytes from address `start`, as the
/// address of the first and the bytes they span; `None` if none fits.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn huge_page_span(start: usize, bytes: usize) -> Option<(usize, usize)> {
    let begin = start.checked_next_multiple_of(HUGE_PAGE)?;
    let end = start.checked_add(bytes)? & !(HUGE_PAGE - 1);
    (end > begin).then(|| (begin, end - begin))
}

/// Asks Linux to back the whole huge pages within `bytes` from `start`,
/// memory not yet touched, with huge pages. A step streams its largest
/// buffers several times; at 100,000 bodies they span tens of megabytes,
/// more pages of 4 KiB than the processor's address cache holds, so
/// nearly every page crossed costs a page-table walk. Advice only: a
/// kernel that gives huge pages to programs that ask (a usual setting)
/// follows it; one that gives them always or never is not changed by it.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *const u8, bytes: usize) {
    if let Some((begin, len)) = huge_page_span(start as usize, bytes) {
        // SAFETY: the span lies within one live allocation; the advice
        // changes how the memory is backed, never what it holds. Refused
        // advice (a kernel without huge pages) is harmless, so the result
        // is not read.
        unsafe { libc::madvise(begin as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *const u8, _bytes: usize) {}

/// Makes `v` `len` items long, every item to be overwritten. When `v` has
/// room, the items it holds are left as they are rather than filled again
/// and only new ones are set to `fill`; otherwise it is refilled.
pub(crate) fn resize_to_overwrite<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
    if v.capacity() < len {
        refill(v, len);
    }
    v.resize(len, fill);
}

/// Memory shared by step buffers whose lives do not overlap: what the
/// broadphase and narrowphase need only while contacts are made (the
/// shapes' placed views, last step's impulses, sort scratch), and the
/// solver's colouring and then its constraint batches. Lent to one phase at
/// a time, a step's peak holds the largest phase, not all of them. Each use
/// takes it afresh as uninitialised slots of its own types, and must write
/// a slot before reading it.
#[derive(Debug, Default)]
pub(crate) struct SharedScratch {
    /// Never written here: each use writes what it reads, so growing the
    /// memory touches none of it, and room asked for but left unused never
    /// becomes resident.
    blocks: Vec<MaybeUninit<Block>>,
}

/// The unit of [`SharedScratch`]: 32 bytes, aligned for 256-bit lanes.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
struct Block([u8; 32]);

/// Blocks taken by `count` items of `T`.
fn blocks_for<T>(count: usize) -> usize {
    (count * size_of::<T>()).div_ceil(size_of::<Block>())
}

impl SharedScratch {
    /// All of the memory, at least `bytes` of it (see [`Room::bytes_for`]),
    /// to be taken in typed runs.
    pub fn room(&mut self, bytes: usize) -> Room<'_> {
        let blocks = bytes.div_ceil(size_of::<Block>());
        // Never shortened, so that a larger use after a smaller one finds
        // its room already there.
        if self.blocks.len() < blocks {
            refill(&mut self.blocks, blocks);
            // SAFETY: `refill` made room for `blocks`, and uninitialised
            // blocks are valid as such.
            unsafe { self.blocks.set_len(blocks) };
        }
        Room {
            rest: &mut self.blocks,
        }
    }

    /// Room for `first` items of `A` and, after them, `second` items of `B`.
    #[cfg(test)]
    pub fn lend_two<A, B>(
        &mut self,
        first: usize,
        second: usize,
    ) -> (&mut [MaybeUninit<A>], &mut [MaybeUninit<B>]) {
        let mut room = self.room(Room::bytes_for::<A>(first) + Room::bytes_for::<B>(second));
        let sized = "the room was sized for both";
        let a = room.take(first).expect(sized);
        (a, room.take(second).expect(sized))
    }
}

/// Memory lent by a [`SharedScratch`], taken front to back in runs of
/// uninitialised slots, each run 32-byte aligned.
#[derive(Debug)]
pub(crate) struct Room<'a> {
    rest: &'a mut [MaybeUninit<Block>],
}

impl<'a> Room<'a> {
    /// Bytes of a room that `count` items of `T` take (whole blocks).
    pub fn bytes_for<T>(count: usize) -> usize {
        blocks_for::<T>(count) * size_of::<Block>()
    }

    /// The next `count` slots for items of `T`, or `None` when the room has
    /// too little left.
    pub fn take<T>(&mut self, count: usize) -> Option<&'a mut [MaybeUninit<T>]> {
        const { assert!(align_of::<T>() <= align_of::<Block>()) };
        let blocks = blocks_for::<T>(count);
        if blocks > self.rest.len() {
            return None;
        }
        let (run, rest) = std::mem::take(&mut self.rest).split_at_mut(blocks);
        self.rest = rest;
        // SAFETY: the run starts 32-byte aligned (blocks are), which suits
        // `T`, and holds at least `count` items' bytes; uninitialised slots
        // may hold any bytes.
        Some(unsafe { std::slice::from_raw_parts_mut(run.as_mut_ptr().cast(), count) })
    }

    /// [`Room::take`], or when the room has too little left, slots of
    /// `spare`, made large enough. `spare` is freed when the room suffices,
    /// so that the memory is not held twice.
    pub fn take_or<T>(&mut self, count: usize, spare: &'a mut Vec<T>) -> &'a mut [MaybeUninit<T>] {
        match self.take(count) {
            Some(slots) => {
                *spare = Vec::new();
                slots
            }
            None => {
                refill(spare, count);
                &mut spare.spare_capacity_mut()[..count]
            }
        }
    }
}

/// `slots` as the values written into them.
///
/// # Safety
/// Every slot must have been written.
pub(crate) unsafe fn assume_written<T>(slots: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and the caller guarantees
    // each slot holds a `T`.
    unsafe { &mut *(slots as *mut [MaybeUninit<T>] as *mut [T]) }
}

/// Writes `slots` with zeros and returns them.
pub(crate) fn zeroed(slots: &mut [MaybeUninit<u32>]) -> &mut [u32] {
    for slot in slots.iter_mut() {
        slot.write(0);
    }
    // SAFETY: every slot was written just above.
    unsafe { assume_written(slots) }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_huge_page_span_is_every_whole_huge_page_within_the_range(
            start in 0usize..1 << 40,
            bytes in 0usize..64 << 20,
        ) {
            let end = start + bytes;
            let first = start.div_ceil(HUGE_PAGE) * HUGE_PAGE;
            let whole = (end.saturating_sub(first)) / HUGE_PAGE;
            match huge_page_span(start, bytes) {
                Some((begin, len)) => {
                    proptest::prop_assert_eq!(begin, first);
                    proptest::prop_assert_eq!(len, whole * HUGE_PAGE);
                    proptest::prop_assert!(len > 0 && begin + len <= end);
                }
                None => proptest::prop_assert_eq!(whole, 0),
            }
        }
    }

    #[test]
    fn a_range_at_the_top_of_the_address_space_has_no_huge_page_span() {
        assert_eq!(huge_page_span(usize::MAX - 10, 5), None);
        assert_eq!(huge_page_span(HUGE_PAGE, usize::MAX), None);
        assert_eq!(
            huge_page_span(HUGE_PAGE, HUGE_PAGE),
            Some((HUGE_PAGE, HUGE_PAGE))
        );
    }

    #[test]
    fn refill_grows_by_a_quarter_more_and_keeps_a_larger_buffer() {
        let mut v = vec![1u64; 10];
        refill(&mut v, 1000);
        assert!(v.is_empty());
        assert_eq!(v.capacity(), 1250);
        refill(&mut v, 1200);
        assert_eq!(v.capacity(), 1250);
        resize_to_overwrite(&mut v, 20, 7);
        assert_eq!(v, vec![7; 20]);
        assert_eq!(v.capacity(), 1250);
    }

    #[test]
    fn resizing_to_overwrite_fills_only_new_items() {
        let mut v = Vec::with_capacity(8);
        v.extend([1u64, 2, 3]);
        resize_to_overwrite(&mut v, 5, 9);
        assert_eq!(v, vec![1, 2, 3, 9, 9]);
        resize_to_overwrite(&mut v, 2, 9);
        assert_eq!(v, vec![1, 2]);
        resize_to_overwrite(&mut v, 100, 0);
        assert_eq!((v.len(), v.capacity()), (100, 125));
        assert!(v.iter().all(|&x| x == 0));
    }

    #[test]
    fn shared_scratch_lends_aligned_disjoint_room_and_grows_when_asked() {
        let mut scratch = SharedScratch::default();
        let (a, b) = scratch.lend_two::<u64, [f32; 8]>(3, 5);
        assert_eq!((a.len(), b.len()), (3, 5));
        assert_eq!(b.as_ptr() as usize % 32, 0);
        // `a` takes one block (24 bytes); `b` starts on the next.
        assert_eq!(b.as_ptr() as usize - a.as_ptr() as usize, 32);
        for (k, slot) in b.iter_mut().enumerate() {
            slot.write([k as f32; 8]);
        }
        // SAFETY: all five written just above.
        let b = unsafe { assume_written(b) };
        assert_eq!(b[4], [4.0; 8]);
        let (big, none) = scratch.lend_two::<u32, u8>(1000, 0);
        assert_eq!((big.len(), none.len()), (1000, 0));
        assert!(scratch.blocks.len() * 32 >= 4000);
    }

    #[test]
    fn a_room_lends_what_it_holds_then_falls_back_on_a_spare_buffer() {
        let mut scratch = SharedScratch::default();
        let (mut held, mut spare) = (Vec::<u64>::with_capacity(4), Vec::<u64>::new());
        let mut room = scratch.room(Room::bytes_for::<u64>(10));
        let first = room.take::<u16>(3).unwrap();
        // Three `u16` take a whole block; the next run starts after it.
        let second = room.take_or::<u64>(6, &mut held);
        assert_eq!(second.as_ptr() as usize - first.as_ptr() as usize, 32);
        assert!(
            room.take::<u64>(3).is_none(),
            "only two items' room is left"
        );
        let third = room.take_or::<u64>(3, &mut spare);
        third[2].write(7);
        assert_eq!(
            held.capacity(),
            0,
            "the room sufficed, so the spare is freed"
        );
        assert!(spare.capacity() >= 3);
        // SAFETY: the spare's third slot was written through `third`.
        assert_eq!(unsafe { spare.spare_capacity_mut()[2].assume_init() }, 7);
    }
}

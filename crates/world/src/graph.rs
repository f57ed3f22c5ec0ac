//! Colouring of the constraint graph.
//!
//! Two contact constraints conflict when they share a dynamic body: solving
//! them at the same time would race on that body's velocity. Greedy
//! colouring gives each constraint the lowest colour not yet used by either
//! of its dynamic bodies; all constraints of one colour then touch disjoint
//! bodies and can be solved in any order, eight at a time in SIMD lanes, on
//! any number of threads, with the same result bit for bit. Static and
//! kinematic bodies are only read by the solver, so they never cause a
//! conflict.
//!
//! A large step's constraints are first cut into *regions*: runs of
//! items in the order they are given (contacts in pair order, or in the
//! solver's own body order), so a region's bodies sit close together in
//! the body arrays. Each region is coloured on its own, and the regions are
//! coloured in turn, two regions conflicting when they share a dynamic
//! body. Colouring within a region needs nothing from the others, so the
//! regions are coloured in [`PARTS`] parts that threads may share, each
//! part noting the bodies each region meets first; the regions then take
//! their colours in one pass over those notes, all that a region's colour
//! depends on (a body met again within a region adds nothing). The solver
//! runs a region's colours one after the other on one
//! thread, while its bodies stay in that core's cache, and the regions of
//! one region colour side by side. (Coloured as one, every colour of a
//! large pile touches nearly every body, so each colour of each pass would
//! stream all the body states through the cache again.)
//!
//! Within a region, a body with more than [`MAX_COLORS`] constraints sends
//! the extra ones to the region's overflow set, solved after its colours;
//! regions beyond [`MAX_COLORS`] region colours are solved after the others,
//! one after the other.

use std::mem::MaybeUninit;
use std::ops::Range;

use crate::buffer::{assume_written, resize_to_overwrite};
use crate::threading::{share_each, HelperBoard};

/// Colours handed out, in a region and among regions, before overflowing.
pub(crate) const MAX_COLORS: usize = 32;

/// The colouring of one step, in the order the solver runs it: region
/// colours in turn; within one, its regions (independent of each other);
/// within a region, its colours in turn and then its overflow set. The
/// constraints themselves are listed in that order, in a list for each
/// kind that [`Coloring::build`] fills.
#[derive(Debug, Default)]
pub(crate) struct Coloring {
    /// Per group (a colour of a region), in the order they are run: the end
    /// of its constraints in the list of each kind (each begins where the
    /// group before ends). Each region's last group is its overflow set.
    pub group_ends: Vec<[u32; 2]>,
    /// Per region, in the order they are run: the end of its groups in
    /// `group_ends`.
    pub region_ends: Vec<u32>,
    /// Per region colour: the end of its regions in `region_ends`. The last
    /// holds the regions that overflowed, which may share bodies.
    pub region_color_ends: Vec<u32>,
    /// Per region in item order, which is where its bodies lie in the body
    /// arrays: its index in run order. Threads split the regions by place
    /// with it, so that each keeps to the same bodies.
    pub regions_by_place: Vec<u32>,
    /// Per region, in run order: the span of the dynamic bodies its
    /// constraints move. Regions whose spans do not overlap share no such
    /// body, whatever their colours.
    pub region_spans: Vec<BodySpan>,
    /// The same spans per region in the order of their places (item
    /// order), as the regions take their colours.
    spans_by_place: Vec<BodySpan>,
    /// The most colours any region used, overflow excluded.
    colors: usize,
    /// Per region: its colour among regions.
    region_colors: Vec<u8>,
    /// The bit of each region's colour (none for an overflowed region),
    /// after a first entry of none, so that a [`BodyMark`]'s region indexes
    /// it.
    region_bits: Vec<u32>,
    /// Per region: how many of its items took each sort key.
    key_counts: Vec<[u32; KEY_COUNT]>,
    /// Per region: how many bodies it met first.
    first_counts: Vec<u32>,
    /// Per region: where the items of each sort key begin in their kind's
    /// list.
    key_starts: Vec<[u32; KEY_COUNT]>,
}

/// The lowest and the highest index of a set of bodies, a range that holds
/// them all (and that is empty, `lo > hi`, for none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodySpan {
    lo: u32,
    hi: u32,
}

impl BodySpan {
    /// The span of no body.
    pub const EMPTY: BodySpan = BodySpan {
        lo: u32::MAX,
        hi: 0,
    };
    /// A span that holds every body.
    pub const ALL: BodySpan = BodySpan {
        lo: 0,
        hi: u32::MAX,
    };

    /// The span of the bodies `lo..=hi`.
    pub fn new(lo: u32, hi: u32) -> BodySpan {
        BodySpan { lo, hi }
    }

    /// The span of this one's bodies and body `b`.
    fn with(self, b: u32) -> BodySpan {
        BodySpan {
            lo: self.lo.min(b),
            hi: self.hi.max(b),
        }
    }

    /// Whether the two ranges share an index: if not, the two sets of
    /// bodies share no body.
    pub fn overlaps(self, other: BodySpan) -> bool {
        let empty = self.lo > self.hi || other.lo > other.hi;
        !empty && self.lo <= other.hi && other.lo <= self.hi
    }
}

/// Run `k` of a list cut into runs whose ends are `ends` (as
/// [`Coloring::region_ends`] cuts the groups, and
/// [`Coloring::region_color_ends`] the regions).
#[inline]
pub(crate) fn run(ends: &[u32], k: usize) -> Range<usize> {
    let begin = if k == 0 { 0 } else { ends[k - 1] as usize };
    begin..ends[k] as usize
}

/// The regions are coloured in this many parts, runs of regions each with
/// a body table of its own, so that the parts can be coloured on different
/// threads; the regions' own colours are then handed out in one pass over
/// the bodies each region met first (see [`Coloring::build`]). The parts
/// are fixed, whoever colours them, so the result is the same bits on any
/// number of threads.
pub(crate) const PARTS: usize = 2;

/// What colouring keeps per body, in a table of each part and then, in the
/// first part's table, for the regions: the last region that met the body
/// (its index plus one, 0 for none yet) and a set of colours. In a part's
/// table those are the colours the body's constraints took in that region;
/// in the regions' table, the colours of the regions before that one that
/// met the body (that region's own colour is added when a later region
/// meets the body, as it is known only once the region is coloured).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyMark {
    region: u32,
    colors: u32,
}

impl BodyMark {
    const NONE: BodyMark = BodyMark {
        region: 0,
        colors: 0,
    };

    /// The mark of a body region `tag` has just met, with no colours yet.
    fn met_in(tag: u32) -> BodyMark {
        BodyMark {
            region: tag,
            colors: 0,
        }
    }
}

/// Memory lent to [`Coloring::build`], each slot to be overwritten: per
/// body, its [`BodyMark`] in each table (see [`ColoringSlots::marks_for`]);
/// per item, its sort key (its colour times two, plus one for the second
/// kind) and room for the two bodies its region may have met first with
/// it.
pub(crate) struct ColoringSlots<'a> {
    pub marks: &'a mut [MaybeUninit<BodyMark>],
    pub keys: &'a mut [MaybeUninit<u8>],
    pub firsts: &'a mut [MaybeUninit<u32>],
}

impl ColoringSlots<'_> {
    /// Marks lent for `bodies` body indices: a table of `bodies + 1` for
    /// each part (the one more entry stands for every fixed body).
    pub fn marks_for(bodies: usize) -> usize {
        PARTS * (bodies + 1)
    }
}

/// What colouring reads of a constraint: its two body indices (`None` for
/// a body that is not dynamic) and whether it is of the second kind.
pub(crate) type Ends = ([Option<u32>; 2], bool);

/// Marks an overflow set among the colours.
const OVERFLOW: u8 = MAX_COLORS as u8;

/// Sort keys: a colour and a kind each, overflow included...
const KEYS: usize = 2 * (MAX_COLORS + 1);
/// ...and one more for the items that need no constraint, sorted last.
const NO_CONSTRAINT: u8 = KEYS as u8;
const KEY_COUNT: usize = KEYS + 1;

/// One part's share of the colouring: a run of regions, its body table and
/// the slots of its items.
struct Part<'s> {
    /// Its first region.
    first_region: usize,
    marks: &'s mut [MaybeUninit<BodyMark>],
    keys: &'s mut [MaybeUninit<u8>],
    firsts: &'s mut [MaybeUninit<u32>],
    /// Per region of the part: how many of its items took each key, and
    /// how many bodies it met first.
    key_counts: &'s mut [[u32; KEY_COUNT]],
    first_counts: &'s mut [u32],
}

impl Coloring {
    /// Colours the constraints of `count` items, cut into regions of
    /// `region_len` items; `ends(i)` gives item `i`'s [`Ends`], or `None`
    /// for an item that needs no constraint. The slots hold the marks of
    /// [`ColoringSlots::marks_for`] the number of bodies (which bounds the
    /// body indices), one key per item and two firsts. The parts are
    /// coloured, and their items listed, with `helper`'s help when given.
    /// Fills `lists` with the items of each kind in the order the solver
    /// runs them (see [`Coloring`]), each as `ids` names it (item `i` as
    /// `ids[i]`), or by its index without; the items that need no
    /// constraint are in neither.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        &mut self,
        count: usize,
        ends: impl Fn(usize) -> Option<Ends> + Sync,
        region_len: usize,
        slots: ColoringSlots,
        lists: [&mut Vec<u32>; 2],
        ids: Option<&[u32]>,
        helper: Option<&HelperBoard>,
    ) {
        assert_eq!(slots.keys.len(), count, "one key per item");
        assert_eq!(slots.firsts.len(), 2 * count, "two firsts per item");
        let table = slots.marks.len() / PARTS;
        assert!(
            table > 0 && slots.marks.len() == PARTS * table,
            "a table of marks per part"
        );
        assert!(region_len > 0, "regions must hold items");
        let regions = count.div_ceil(region_len);
        self.key_counts.clear();
        self.key_counts.resize(regions, [0; KEY_COUNT]);
        self.first_counts.clear();
        self.first_counts.resize(regions, 0);
        let part_regions = regions.div_ceil(PARTS).max(1);
        {
            let part_items = part_regions * region_len;
            let mut parts: [Option<Part>; PARTS] = Default::default();
            let shares = slots
                .marks
                .chunks_mut(table)
                .zip(slots.keys.chunks_mut(part_items))
                .zip(slots.firsts.chunks_mut(2 * part_items))
                .zip(self.key_counts.chunks_mut(part_regions))
                .zip(self.first_counts.chunks_mut(part_regions));
            for (k, ((((marks, keys), firsts), key_counts), first_counts)) in shares.enumerate() {
                parts[k] = Some(Part {
                    first_region: k * part_regions,
                    marks,
                    keys,
                    firsts,
                    key_counts,
                    first_counts,
                });
            }
            // A part with no regions (few items) is `None`. One that
            // panicked on the helper wrote only some of its slots.
            let color_part = |part: Option<Part>| {
                if let Some(part) = part {
                    color_regions(part, &ends, region_len);
                }
            };
            let failed = "a part of the colouring failed on another thread";
            share_each(helper, parts, color_part, failed);
        }
        // SAFETY: each part wrote one key per item of its regions, and the
        // parts' regions cover every item.
        let keys = unsafe { assume_written(slots.keys) };
        // The parts are done with their tables: the first takes the
        // regions' marks.
        let region_marks = &mut slots.marks[..table];
        self.color_regions_among_themselves(region_marks, slots.firsts, region_len);
        let lengths = self.group();
        // Each part lists the items of its regions where they go (whoever
        // colours a part is likely to list it too, so its keys stay in
        // that thread's cache).
        let [first, second] = lists;
        resize_to_overwrite(first, lengths[0] as usize, 0);
        resize_to_overwrite(second, lengths[1] as usize, 0);
        let targets = ListTargets([first.as_mut_ptr(), second.as_mut_ptr()]);
        let list_part = |k: usize| {
            for region in k * part_regions..((k + 1) * part_regions).min(regions) {
                // SAFETY: every item goes to a slot of its own (the key
                // starts give each region and key a run of its own and the
                // counts size them), within the lists' lengths.
                unsafe { self.list_region(region, keys, region_len, ids, &targets) };
            }
        };
        match helper {
            Some(board) => board.share(PARTS, &list_part),
            None => (0..PARTS).for_each(list_part),
        }
    }

    /// Writes the items of region `region` into the lists (`targets`), each
    /// at its key's next slot.
    ///
    /// # Safety
    /// No other thread may be listing the same region, and the lists must
    /// be as long as [`Coloring::group`] said.
    unsafe fn list_region(
        &self,
        region: usize,
        keys: &[u8],
        region_len: usize,
        ids: Option<&[u32]>,
        targets: &ListTargets,
    ) {
        let mut next = self.key_starts[region];
        let first = region * region_len;
        let items = first..(first + region_len).min(keys.len());
        for (i, &key) in items.clone().zip(&keys[items]) {
            if key == NO_CONSTRAINT {
                continue;
            }
            let at = &mut next[key as usize];
            let id = ids.map_or(i as u32, |ids| ids[i]);
            // SAFETY: the caller's guarantee.
            unsafe { *targets.0[usize::from(key & 1)].add(*at as usize) = id };
            *at += 1;
        }
    }

    /// Hands out the regions' colours, region by region: a region cannot
    /// take the colour of any earlier region that met one of its bodies,
    /// and it is enough to look at the bodies it met first (those its
    /// parts noted in `firsts`, region `r`'s from `2 · r · region_len`).
    /// Those are every dynamic body it moves, once each, which also gives
    /// its span.
    fn color_regions_among_themselves(
        &mut self,
        marks: &mut [MaybeUninit<BodyMark>],
        firsts: &mut [MaybeUninit<u32>],
        region_len: usize,
    ) {
        for slot in marks.iter_mut() {
            slot.write(BodyMark::NONE);
        }
        // SAFETY: every slot was written just above.
        let marks = unsafe { assume_written(marks) };
        self.colors = 0;
        self.region_colors.clear();
        self.region_bits.clear();
        self.region_bits.push(0);
        self.spans_by_place.clear();
        let regions = self.key_counts.iter().zip(&self.first_counts);
        for (region, (counts, &met)) in regions.enumerate() {
            let start = 2 * region * region_len;
            // SAFETY: the region's part wrote its first `met` firsts.
            let met = unsafe { assume_written(&mut firsts[start..start + met as usize]) };
            let mut taken = 0;
            let mut span = BodySpan::EMPTY;
            for &mut b in met {
                span = span.with(b);
                let mark = &mut marks[b as usize];
                // The last region that met the body is coloured by now.
                mark.colors |= self.region_bits[mark.region as usize];
                taken |= mark.colors;
                mark.region = region as u32 + 1;
            }
            let free = (!taken).trailing_zeros() as usize;
            let (color, bit) = if free < MAX_COLORS {
                (free as u8, 1 << free)
            } else {
                (OVERFLOW, 0)
            };
            self.region_colors.push(color);
            self.spans_by_place.push(span);
            self.region_bits.push(bit);
            let used = (0..MAX_COLORS)
                .rev()
                .find(|&c| counts[2 * c] + counts[2 * c + 1] > 0);
            self.colors = self.colors.max(used.map_or(0, |c| c + 1));
        }
    }

    /// Lists the groups (with where each key's items begin in its kind's
    /// list) and the regions in the order the solver runs them: regions by
    /// region colour, and within each region by colour and kind. Empty
    /// colours are dropped, but every region keeps its overflow set and the
    /// regions' overflow colour is always last. Returns the lists' lengths.
    fn group(&mut self) -> [u32; 2] {
        self.group_ends.clear();
        self.region_ends.clear();
        self.region_color_ends.clear();
        self.regions_by_place.clear();
        self.regions_by_place.resize(self.key_counts.len(), 0);
        self.region_spans.clear();
        self.key_starts.clear();
        self.key_starts
            .resize(self.key_counts.len(), [0; KEY_COUNT]);
        let mut next = [0u32; 2];
        for region_color in 0..=OVERFLOW {
            for (region, counts) in self.key_counts.iter().enumerate() {
                if self.region_colors[region] != region_color {
                    continue;
                }
                let starts = &mut self.key_starts[region];
                for c in 0..=MAX_COLORS {
                    let begin = next;
                    for kind in 0..2 {
                        starts[2 * c + kind] = next[kind];
                        next[kind] += counts[2 * c + kind];
                    }
                    if begin != next || c == MAX_COLORS {
                        self.group_ends.push(next);
                    }
                }
                self.regions_by_place[region] = self.region_ends.len() as u32;
                self.region_spans.push(self.spans_by_place[region]);
                self.region_ends.push(self.group_ends.len() as u32);
            }
            let regions = self.region_ends.len() as u32;
            let previous = self.region_color_ends.last().copied().unwrap_or(0);
            if regions > previous || region_color == OVERFLOW {
                self.region_color_ends.push(regions);
            }
        }
        next
    }

    /// The most colours any region used, overflow excluded.
    pub fn color_count(&self) -> usize {
        self.colors
    }

    /// How many times as fast as one thread `threads` threads could run the
    /// regions, counting regions alone: the regions of a region colour are
    /// shared out (so it takes as long as its share rounded up), and those
    /// that overflowed run one after another.
    pub fn region_speedup(&self, threads: usize) -> f32 {
        let colors = self.region_color_ends.len();
        let in_turn: usize = (0..colors)
            .map(|color| {
                let regions = run(&self.region_color_ends, color).len();
                match color + 1 == colors {
                    true => regions,
                    false => regions.div_ceil(threads.max(1)),
                }
            })
            .sum();
        self.region_ends.len() as f32 / in_turn.max(1) as f32
    }
}

/// The lists of [`Coloring::build`], written by whichever thread lists a
/// region.
struct ListTargets([*mut u32; 2]);

// SAFETY: each slot is written by the one thread listing the item that
// goes there (see `Coloring::list_region`).
unsafe impl Sync for ListTargets {}

/// Colours the items of `part`'s regions within each region, as
/// [`Coloring::build`] says; `ends` gives the [`Ends`] of every item.
fn color_regions(part: Part, ends: &impl Fn(usize) -> Option<Ends>, region_len: usize) {
    for slot in part.marks.iter_mut() {
        slot.write(BodyMark::NONE);
    }
    // SAFETY: every slot was written just above.
    let marks = unsafe { assume_written(part.marks) };
    let fixed = marks.len() - 1;
    let first_item = part.first_region * region_len;
    let regions = part.key_counts.iter_mut().zip(part.first_counts);
    for (k, (counts, first_count)) in regions.enumerate() {
        let tag = (part.first_region + k) as u32 + 1;
        // The entry of fixed ends is always in the current region, so it
        // is never met first.
        marks[fixed] = BodyMark::met_in(tag);
        let items = k * region_len..((k + 1) * region_len).min(part.keys.len());
        let firsts = &mut part.firsts[2 * items.start..2 * items.end];
        let mut met = 0;
        for i in items {
            let key = color_item(ends(first_item + i), tag, marks, firsts, &mut met);
            part.keys[i].write(key);
            counts[key as usize] += 1;
        }
        *first_count = met as u32;
    }
}

/// The sort key of one item of region `tag` (its index plus one): the
/// lowest colour neither of its bodies took in the region. A body the
/// region meets first is written to `firsts` at `met`. A fixed end
/// (`None`) reads and writes the last entry of `marks`, kept empty, so
/// there is no branch on which ends are fixed: a pile's contacts with the
/// walls come in no pattern.
#[inline]
fn color_item(
    item: Option<Ends>,
    tag: u32,
    marks: &mut [BodyMark],
    firsts: &mut [MaybeUninit<u32>],
    met: &mut usize,
) -> u8 {
    let Some((ends, second)) = item else {
        return NO_CONSTRAINT;
    };
    let fixed = marks.len() - 1;
    let ends = ends.map(|end| end.map_or(fixed, |b| b as usize));
    let mut mask = 0;
    for &b in &ends {
        let mark = &mut marks[b];
        if mark.region != tag {
            firsts[*met].write(b as u32);
            *met += 1;
            *mark = BodyMark::met_in(tag);
        }
        mask |= mark.colors;
    }
    let free = (!mask).trailing_zeros() as usize;
    let color = if free < MAX_COLORS {
        for &b in &ends {
            marks[b].colors |= 1 << free;
        }
        free as u8
    } else {
        OVERFLOW
    };
    marks[fixed] = BodyMark::met_in(tag);
    2 * color + u8::from(second)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::{Room, SharedScratch};

    /// The lists `build` fills: items of the first kind, then the second.
    type Lists = [Vec<u32>; 2];

    /// Colours `items` among `bodies` bodies as one region.
    fn color(coloring: &mut Coloring, bodies: usize, items: &[Option<Ends>]) -> Lists {
        color_in_regions(coloring, bodies, items, items.len().max(1))
    }

    /// Colours `items` among `bodies` bodies in regions of `region_len`.
    fn color_in_regions(
        coloring: &mut Coloring,
        bodies: usize,
        items: &[Option<Ends>],
        region_len: usize,
    ) -> Lists {
        color_with(coloring, bodies, items, region_len, None)
    }

    /// [`color_in_regions`], the parts shared with a helper on `board`
    /// when given.
    fn color_with(
        coloring: &mut Coloring,
        bodies: usize,
        items: &[Option<Ends>],
        region_len: usize,
        board: Option<&HelperBoard>,
    ) -> Lists {
        color_named(coloring, bodies, items, region_len, None, board)
    }

    /// [`color_with`], the items listed as `ids` names them when given.
    fn color_named(
        coloring: &mut Coloring,
        bodies: usize,
        items: &[Option<Ends>],
        region_len: usize,
        ids: Option<&[u32]>,
        board: Option<&HelperBoard>,
    ) -> Lists {
        let mut scratch = SharedScratch::default();
        let (marks, count) = (ColoringSlots::marks_for(bodies), items.len());
        let mut room = scratch.room(
            Room::bytes_for::<BodyMark>(marks)
                + Room::bytes_for::<u8>(count)
                + Room::bytes_for::<u32>(2 * count),
        );
        let slots = ColoringSlots {
            marks: room.take(marks).unwrap(),
            keys: room.take(count).unwrap(),
            firsts: room.take(2 * count).unwrap(),
        };
        // Lists that held something before, to be overwritten.
        let mut lists = [vec![7; 3], vec![7; 500]];
        let [first, second] = &mut lists;
        let ends = |i: usize| items[i];
        coloring.build(count, ends, region_len, slots, [first, second], ids, board);
        lists
    }

    /// The items of each group in run order: the first kind's, then the
    /// second's.
    fn groups(coloring: &Coloring, lists: &Lists) -> Vec<Vec<u32>> {
        let mut begin = [0usize; 2];
        let mut groups = Vec::new();
        for &ends in &coloring.group_ends {
            let mut group = Vec::new();
            for kind in 0..2 {
                let end = ends[kind] as usize;
                group.extend_from_slice(&lists[kind][begin[kind]..end]);
                begin[kind] = end;
            }
            groups.push(group);
        }
        assert_eq!(
            begin,
            [lists[0].len(), lists[1].len()],
            "the groups end the lists"
        );
        groups
    }

    #[test]
    fn constraints_of_one_colour_share_no_dynamic_body() {
        // A chain 0-1-2-3-4 plus every body against the static ground (None).
        let edges: Vec<[Option<u32>; 2]> = (0..4)
            .map(|i| [Some(i), Some(i + 1)])
            .chain((0..5).map(|i| [Some(i), None]))
            .collect();
        let items: Vec<_> = edges.iter().map(|&e| Some((e, false))).collect();
        let mut coloring = Coloring::default();
        let lists = color(&mut coloring, 5, &items);
        assert_eq!(lists[0].len(), edges.len());
        for group in &groups(&coloring, &lists)[..coloring.color_count()] {
            let mut seen = [false; 5];
            for &k in group {
                for b in edges[k as usize].iter().flatten() {
                    assert!(!seen[*b as usize], "body {b} twice in one colour");
                    seen[*b as usize] = true;
                }
            }
        }
        // A path needs 2 colours, and each body's ground contact one more.
        assert_eq!(coloring.color_count(), 3);
    }

    #[test]
    fn each_kind_is_listed_on_its_own_in_item_order() {
        // Four separate pairs: one colour; kinds alternate.
        let items: Vec<_> = (0..4)
            .map(|i| Some(([Some(2 * i), Some(2 * i + 1)], i % 2 == 1)))
            .collect();
        let mut coloring = Coloring::default();
        let lists = color(&mut coloring, 8, &items);
        assert_eq!(coloring.color_count(), 1);
        assert_eq!(coloring.group_ends[0], [2, 2]);
        assert_eq!(lists, [vec![0, 2], vec![1, 3]]);
    }

    #[test]
    fn items_named_by_ids_are_listed_by_them() {
        // As in the test above, the items listed by names of their own.
        let items: Vec<_> = (0..4)
            .map(|i| Some(([Some(2 * i), Some(2 * i + 1)], i % 2 == 1)))
            .collect();
        let ids = [40, 31, 22, 13];
        let mut coloring = Coloring::default();
        let lists = color_named(&mut coloring, 8, &items, 4, Some(&ids), None);
        assert_eq!(lists, [vec![40, 22], vec![31, 13]]);
    }

    #[test]
    fn items_without_a_constraint_take_no_colour_and_are_not_listed() {
        // Items 1 and 3 need no constraint; 0 and 2 share body 0.
        let items = [
            Some(([Some(0), None], false)),
            None,
            Some(([Some(0), Some(1)], false)),
            None,
        ];
        let mut coloring = Coloring::default();
        let lists = color(&mut coloring, 2, &items);
        assert_eq!(coloring.color_count(), 2);
        assert_eq!(coloring.group_ends[..2], [[1, 0], [2, 0]]);
        assert_eq!(*coloring.group_ends.last().unwrap(), [2, 0]);
        assert_eq!(lists, [vec![0, 2], vec![]]);
    }

    #[test]
    fn a_body_with_too_many_constraints_overflows() {
        let items: Vec<_> = (0..40).map(|_| Some(([Some(0), None], false))).collect();
        let mut coloring = Coloring::default();
        let lists = color(&mut coloring, 1, &items);
        assert_eq!(coloring.color_count(), MAX_COLORS);
        let overflow = groups(&coloring, &lists).pop().unwrap();
        assert_eq!(overflow.len(), 40 - MAX_COLORS);
    }

    #[test]
    fn regions_sharing_only_fixed_bodies_take_the_same_region_colour() {
        // Two regions of one constraint each, every body against the
        // ground (None): they share no dynamic body.
        let items = [
            Some(([Some(0), None], false)),
            Some(([None, Some(1)], false)),
        ];
        let mut coloring = Coloring::default();
        color_in_regions(&mut coloring, 2, &items, 1);
        assert_eq!(coloring.region_ends.len(), 2);
        assert_eq!(coloring.region_color_ends, vec![2, 2]);
    }

    #[test]
    fn regions_in_a_row_run_side_by_side_and_regions_that_all_meet_do_not() {
        // Eight regions of two constraints each. In a row, each region meets
        // only its neighbours: two region colours of four, so two threads
        // run them in 2 + 2 turns and four in 1 + 1.
        let row: Vec<_> = (0..16)
            .map(|i| Some(([Some(i), Some(i + 1)], false)))
            .collect();
        let mut coloring = Coloring::default();
        color_in_regions(&mut coloring, 17, &row, 2);
        assert_eq!(coloring.region_ends.len(), 8);
        assert_eq!(coloring.region_speedup(1), 1.0);
        assert_eq!(coloring.region_speedup(2), 2.0);
        assert_eq!(coloring.region_speedup(4), 4.0);
        // Every region also touches body 17: each takes a colour of its own.
        let tangled: Vec<_> = (0..16)
            .map(|i| Some(([Some(i), Some(17)], false)))
            .collect();
        color_in_regions(&mut coloring, 18, &tangled, 2);
        assert_eq!(coloring.region_ends.len(), 8);
        assert_eq!(coloring.region_speedup(2), 1.0);
    }

    #[test]
    fn spans_overlap_when_they_share_an_index() {
        let span = BodySpan::new(4, 9);
        assert!(span.overlaps(BodySpan::new(9, 12)) && span.overlaps(BodySpan::new(0, 4)));
        assert!(span.overlaps(BodySpan::new(5, 6)) && BodySpan::new(5, 6).overlaps(span));
        assert!(!span.overlaps(BodySpan::new(10, 12)) && !span.overlaps(BodySpan::new(0, 3)));
        // The span of no body meets none, not even itself.
        assert!(!BodySpan::EMPTY.overlaps(span) && !span.overlaps(BodySpan::EMPTY));
        assert!(!BodySpan::EMPTY.overlaps(BodySpan::EMPTY));
        assert!(BodySpan::ALL.overlaps(span) && !BodySpan::ALL.overlaps(BodySpan::EMPTY));
    }

    /// The dynamic bodies of the constraints of `group`.
    fn bodies_of<'a>(
        group: &'a [u32],
        items: &'a [Option<Ends>],
    ) -> impl Iterator<Item = u32> + 'a {
        group
            .iter()
            .flat_map(move |&k| items[k as usize].map_or([None, None], |(b, _)| b))
            .flatten()
    }

    proptest::proptest! {
        #[test]
        fn regions_list_every_item_once_and_share_no_body_where_run_together(
            edges in proptest::collection::vec((0u32..40, 0u32..41, proptest::bool::ANY, 0u8..6), 0..300),
            region_len in 1usize..64,
        ) {
            // Body 40 stands for a fixed body; one item in six needs no
            // constraint.
            let items: Vec<Option<Ends>> = edges
                .iter()
                .map(|&(a, b, second, keep)| {
                    let b = (b < 40 && b != a).then_some(b);
                    (keep != 0).then_some(([Some(a), b], second))
                })
                .collect();
            let mut coloring = Coloring::default();
            let lists = color_in_regions(&mut coloring, 40, &items, region_len);
            // With a helper colouring and listing parts, the same colouring.
            let mut shared = Coloring::default();
            let board = HelperBoard::default();
            let shared_lists = std::thread::scope(|scope| {
                let close = board.closer();
                scope.spawn(|| board.help());
                let lists = color_with(&mut shared, 40, &items, region_len, Some(&board));
                drop(close);
                lists
            });
            proptest::prop_assert_eq!(&shared_lists, &lists);
            proptest::prop_assert_eq!(&shared.group_ends, &coloring.group_ends);
            proptest::prop_assert_eq!(&shared.region_ends, &coloring.region_ends);
            proptest::prop_assert_eq!(&shared.region_color_ends, &coloring.region_color_ends);
            proptest::prop_assert_eq!(&shared.regions_by_place, &coloring.regions_by_place);
            proptest::prop_assert_eq!(&shared.region_spans, &coloring.region_spans);
            // Each kind's list holds exactly the items of that kind with a
            // constraint.
            for (kind, list) in lists.iter().enumerate() {
                let mut sorted = list.clone();
                sorted.sort_unstable();
                let of_kind = (0..items.len() as u32)
                    .filter(|&k| items[k as usize].is_some_and(|(_, second)| usize::from(second) == kind));
                proptest::prop_assert!(sorted.iter().copied().eq(of_kind));
            }
            let groups = groups(&coloring, &lists);
            let mut regions = Vec::new();
            for region in 0..coloring.region_ends.len() {
                let region_groups = &groups[run(&coloring.region_ends, region)];
                let (_, colors) = region_groups.split_last().unwrap();
                proptest::prop_assert!(colors.len() <= coloring.color_count());
                for group in colors {
                    let mut seen = [false; 40];
                    for b in bodies_of(group, &items) {
                        proptest::prop_assert!(!seen[b as usize], "body {} twice in a colour", b);
                        seen[b as usize] = true;
                    }
                }
                regions.push(region_groups.concat());
            }
            // Each region's span runs from its lowest dynamic body to its
            // highest: so regions whose spans part share no body.
            proptest::prop_assert_eq!(coloring.region_spans.len(), regions.len());
            for (region, &span) in regions.iter().zip(&coloring.region_spans) {
                let lo = bodies_of(region, &items).min();
                let hi = bodies_of(region, &items).max();
                let expected = lo.zip(hi).map_or(BodySpan::EMPTY, |(lo, hi)| BodySpan::new(lo, hi));
                proptest::prop_assert_eq!(span, expected);
            }
            // Place `p` names the region cut from items `p * region_len..`,
            // and a region holds only its own items.
            let mut places = coloring.regions_by_place.clone();
            places.sort_unstable();
            proptest::prop_assert!(places.iter().copied().eq(0..regions.len() as u32));
            for (place, &region) in coloring.regions_by_place.iter().enumerate() {
                let items = &regions[region as usize];
                proptest::prop_assert!(items.iter().all(|&k| k as usize / region_len == place));
                let span = coloring.region_spans[region as usize];
                proptest::prop_assert_eq!(coloring.spans_by_place[place], span);
            }
            let (overflow, colors) = coloring.region_color_ends.split_last().unwrap();
            proptest::prop_assert_eq!(*overflow as usize, regions.len());
            for region_color in 0..colors.len() {
                let mut owner = [usize::MAX; 40];
                for r in run(colors, region_color) {
                    for b in bodies_of(&regions[r], &items) {
                        let o = &mut owner[b as usize];
                        proptest::prop_assert!(*o == usize::MAX || *o == r, "body {} in two regions run together", b);
                        *o = r;
                    }
                }
            }
        }
    }
}

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
//! contacts in pair order, so a region's bodies sit close together in the
//! body arrays. Each region is coloured on its own, and the regions are
//! coloured in turn, two regions conflicting when they share a dynamic
//! body. The solver runs a region's colours one after the other on one
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

use crate::buffer::assume_written;

/// Colours handed out, in a region and among regions, before overflowing.
pub(crate) const MAX_COLORS: usize = 32;

/// The colouring of one step, in the order the solver runs it: region
/// colours in turn; within one, its regions (independent of each other);
/// within a region, its colours in turn and then its overflow set. The
/// constraints themselves are listed in that order, each colour's of the
/// first kind before those of the second, in memory lent to
/// [`Coloring::build`], since the list is needed only until the
/// constraints are batched.
#[derive(Debug, Default)]
pub(crate) struct Coloring {
    /// Per group (a colour of a region): `order[r[0]..r[1]]` and
    /// `order[r[1]..r[2]]` are its constraints of the first and second kind,
    /// where `r` is the group's entry and `order` is what `build` returned.
    /// Each region's last group is its overflow set.
    pub ranges: Vec<[u32; 3]>,
    /// Per region, in the order they are run: the end of its groups in
    /// `ranges`.
    pub region_ends: Vec<u32>,
    /// Per region colour: the end of its regions in `region_ends`. The last
    /// holds the regions that overflowed, which may share bodies.
    pub region_color_ends: Vec<u32>,
    /// Per region in pair order, which is where its bodies lie in the body
    /// arrays: its index in run order. Work split by place rather than by
    /// region colour uses it, so that each thread keeps to the same bodies.
    pub regions_by_place: Vec<u32>,
    /// The most colours any region used, overflow excluded.
    colors: usize,
    /// Per region: its colour among regions.
    region_colors: Vec<u8>,
    /// The bit of each region's colour (none for an overflowed region, and
    /// none for the region being coloured until it is), after a first entry
    /// of none, so that [`BodyColors::region`] indexes it.
    region_bits: Vec<u32>,
    /// Per region: how many of its items took each sort key.
    key_counts: Vec<[u32; KEY_COUNT]>,
}

/// Run `k` of a list cut into runs whose ends are `ends` (as
/// [`Coloring::region_ends`] cuts the groups, and
/// [`Coloring::region_color_ends`] the regions).
#[inline]
pub(crate) fn run(ends: &[u32], k: usize) -> Range<usize> {
    let begin = if k == 0 { 0 } else { ends[k - 1] as usize };
    begin..ends[k] as usize
}

/// What colouring keeps per body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyColors {
    /// The last region whose constraints include the body, plus one (0 for
    /// none yet).
    region: u32,
    /// The colours the body's constraints took in that region.
    local: u32,
    /// The colours of the regions before that one that include the body.
    /// That region's own colour is added when a later region meets the
    /// body, as it is only known once the whole region is coloured.
    regions: u32,
}

impl BodyColors {
    const NONE: BodyColors = BodyColors {
        region: 0,
        local: 0,
        regions: 0,
    };
}

/// Memory lent to [`Coloring::build`], each slot to be overwritten: per
/// body, its [`BodyColors`]; per item, its sort key (its colour times two,
/// plus one for the second kind) and its place in the order.
pub(crate) struct ColoringSlots<'a> {
    pub bodies: &'a mut [MaybeUninit<BodyColors>],
    pub keys: &'a mut [MaybeUninit<u8>],
    pub order: &'a mut [MaybeUninit<u32>],
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

impl Coloring {
    /// Colours the constraints of `count` items, cut into regions of
    /// `region_len` items; `ends(i)` gives item `i`'s [`Ends`], or `None`
    /// for an item that needs no constraint. The slots hold one body entry
    /// per body (bounding the body indices) and one more, and one key and
    /// one order entry per item. Returns the items' indices in the order
    /// the solver runs them (see [`Coloring`]), those that need no
    /// constraint last.
    pub fn build<'a>(
        &mut self,
        count: usize,
        ends: impl Fn(usize) -> Option<Ends>,
        region_len: usize,
        slots: ColoringSlots<'a>,
    ) -> &'a [u32] {
        assert!(
            slots.keys.len() == count && slots.order.len() == count,
            "one key and one order slot per item"
        );
        assert!(region_len > 0, "regions must hold items");
        for slot in slots.bodies.iter_mut() {
            slot.write(BodyColors::NONE);
        }
        // SAFETY: every slot was written just above.
        let bodies = unsafe { assume_written(slots.bodies) };
        self.colors = 0;
        self.region_colors.clear();
        self.region_bits.clear();
        self.region_bits.push(0);
        self.key_counts.clear();
        let fixed = bodies.len() - 1;
        for (region, begin) in (0..count).step_by(region_len).enumerate() {
            let mut counts = [0u32; KEY_COUNT];
            let mut taken = 0;
            let tag = region as u32 + 1;
            self.region_bits.push(0);
            // The entry of fixed ends is always in the current region, so
            // it never brings an earlier region's colour with it.
            bodies[fixed] = BodyColors {
                region: tag,
                ..BodyColors::NONE
            };
            for i in begin..(begin + region_len).min(count) {
                let key = self.color_item(ends(i), tag, bodies, &mut taken);
                slots.keys[i].write(key);
                counts[key as usize] += 1;
            }
            let used = (0..MAX_COLORS)
                .rev()
                .find(|&c| counts[2 * c] + counts[2 * c + 1] > 0);
            self.colors = self.colors.max(used.map_or(0, |c| c + 1));
            let free = (!taken).trailing_zeros() as usize;
            let (color, bit) = if free < MAX_COLORS {
                (free as u8, 1 << free)
            } else {
                (OVERFLOW, 0)
            };
            self.region_colors.push(color);
            self.region_bits[tag as usize] = bit;
            self.key_counts.push(counts);
        }
        // SAFETY: the loop wrote one key per item, and there are as many
        // slots as items.
        let keys = unsafe { assume_written(slots.keys) };
        self.group(keys, region_len, slots.order)
    }

    /// The sort key of one item of region `tag` (its index plus one; see
    /// [`ColoringSlots`]): the lowest colour neither of its bodies took in
    /// the region. Adds the colours of the earlier regions its bodies are
    /// in to `taken`. A fixed end (`None`) reads and writes the last body
    /// entry, kept empty, so there is no branch on which ends are fixed: a
    /// pile's contacts with the walls come in no pattern.
    #[inline]
    fn color_item(
        &self,
        item: Option<Ends>,
        tag: u32,
        bodies: &mut [BodyColors],
        taken: &mut u32,
    ) -> u8 {
        let Some((ends, second)) = item else {
            return NO_CONSTRAINT;
        };
        let fixed = bodies.len() - 1;
        let ends = ends.map(|end| end.map_or(fixed, |b| b as usize));
        let mut mask = 0;
        for &b in &ends {
            let body = &mut bodies[b];
            if body.region != tag {
                // First met in this region: the last region it was in is
                // coloured by now, and the region cannot take the colour
                // of any region the body was in.
                body.regions |= self.region_bits[body.region as usize];
                *taken |= body.regions;
                body.local = 0;
                body.region = tag;
            }
            mask |= body.local;
        }
        let free = (!mask).trailing_zeros() as usize;
        let color = if free < MAX_COLORS {
            for &b in &ends {
                bodies[b].local |= 1 << free;
            }
            free as u8
        } else {
            OVERFLOW
        };
        bodies[fixed] = BodyColors {
            region: tag,
            ..BodyColors::NONE
        };
        2 * color + u8::from(second)
    }

    /// Counting sort of item indices into the order the solver runs them:
    /// regions by region colour, and within each region by colour and kind
    /// (no branch on the kind, which is close to random); the items
    /// without a constraint last. Empty colours are dropped, but every
    /// region keeps its overflow set and the regions' overflow colour is
    /// always last.
    fn group<'a>(
        &mut self,
        keys: &[u8],
        region_len: usize,
        order: &'a mut [MaybeUninit<u32>],
    ) -> &'a [u32] {
        self.ranges.clear();
        self.region_ends.clear();
        self.region_color_ends.clear();
        self.regions_by_place.clear();
        self.regions_by_place.resize(self.key_counts.len(), 0);
        let unconstrained: u32 = self.key_counts.iter().map(|c| c[KEYS]).sum();
        let mut next = 0u32;
        let mut last = keys.len() as u32 - unconstrained;
        for region_color in 0..=OVERFLOW {
            for (region, counts) in self.key_counts.iter().enumerate() {
                if self.region_colors[region] != region_color {
                    continue;
                }
                let mut cursor = [0u32; KEY_COUNT];
                for c in 0..=MAX_COLORS {
                    let begin = next;
                    cursor[2 * c] = next;
                    next += counts[2 * c];
                    let split = next;
                    cursor[2 * c + 1] = next;
                    next += counts[2 * c + 1];
                    if begin < next || c == MAX_COLORS {
                        self.ranges.push([begin, split, next]);
                    }
                }
                cursor[KEYS] = last;
                last += counts[KEYS];
                let first = region * region_len;
                let items = first..(first + region_len).min(keys.len());
                for (i, &k) in items.clone().zip(&keys[items]) {
                    order[cursor[k as usize] as usize].write(i as u32);
                    cursor[k as usize] += 1;
                }
                self.regions_by_place[region] = self.region_ends.len() as u32;
                self.region_ends.push(self.ranges.len() as u32);
            }
            let regions = self.region_ends.len() as u32;
            let previous = self.region_color_ends.last().copied().unwrap_or(0);
            if regions > previous || region_color == OVERFLOW {
                self.region_color_ends.push(regions);
            }
        }
        // SAFETY: the counts give each item its own slot, and there are as
        // many slots as items, so every slot was written.
        unsafe { assume_written(order) }
    }

    /// The most colours any region used, overflow excluded.
    pub fn color_count(&self) -> usize {
        self.colors
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::SharedScratch;

    /// Colours `items` among `bodies` bodies as one region; returns the
    /// order.
    fn color(coloring: &mut Coloring, bodies: usize, items: &[Option<Ends>]) -> Vec<u32> {
        color_in_regions(coloring, bodies, items, items.len().max(1))
    }

    /// Colours `items` among `bodies` bodies in regions of `region_len`;
    /// returns the order.
    fn color_in_regions(
        coloring: &mut Coloring,
        bodies: usize,
        items: &[Option<Ends>],
        region_len: usize,
    ) -> Vec<u32> {
        let mut scratch = SharedScratch::default();
        let (bodies, keys, order) = scratch.lend_three(bodies + 1, items.len(), items.len());
        let slots = ColoringSlots {
            bodies,
            keys,
            order,
        };
        let ends = |i: usize| items[i];
        coloring
            .build(items.len(), ends, region_len, slots)
            .to_vec()
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
        let order = color(&mut coloring, 5, &items);
        assert_eq!(order.len(), edges.len());
        for &[begin, _, end] in &coloring.ranges[..coloring.color_count()] {
            let mut seen = [false; 5];
            for &k in &order[begin as usize..end as usize] {
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
    fn within_a_colour_the_first_kind_comes_first_in_order() {
        // Four separate pairs: one colour; kinds alternate.
        let items: Vec<_> = (0..4)
            .map(|i| Some(([Some(2 * i), Some(2 * i + 1)], i % 2 == 1)))
            .collect();
        let mut coloring = Coloring::default();
        let order = color(&mut coloring, 8, &items);
        assert_eq!(coloring.color_count(), 1);
        assert_eq!(coloring.ranges[0], [0, 2, 4]);
        assert_eq!(order, vec![0, 2, 1, 3]);
    }

    #[test]
    fn items_without_a_constraint_take_no_colour_and_come_last() {
        // Items 1 and 3 need no constraint; 0 and 2 share body 0.
        let items = [
            Some(([Some(0), None], false)),
            None,
            Some(([Some(0), Some(1)], false)),
            None,
        ];
        let mut coloring = Coloring::default();
        let order = color(&mut coloring, 2, &items);
        assert_eq!(coloring.color_count(), 2);
        assert_eq!(coloring.ranges[..2], [[0, 1, 1], [1, 2, 2]]);
        assert_eq!(*coloring.ranges.last().unwrap(), [2, 2, 2]);
        assert_eq!(order, vec![0, 2, 1, 3]);
    }

    #[test]
    fn a_body_with_too_many_constraints_overflows() {
        let items: Vec<_> = (0..40).map(|_| Some(([Some(0), None], false))).collect();
        let mut coloring = Coloring::default();
        color(&mut coloring, 1, &items);
        let [begin, _, end] = *coloring.ranges.last().unwrap();
        assert_eq!(coloring.color_count(), MAX_COLORS);
        assert_eq!((end - begin) as usize, 40 - MAX_COLORS);
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

    /// The dynamic bodies of the constraints `order[begin..end]`.
    fn bodies_of<'a>(
        order: &'a [u32],
        items: &'a [Option<Ends>],
        [begin, _, end]: [u32; 3],
    ) -> impl Iterator<Item = u32> + 'a {
        order[begin as usize..end as usize]
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
            let order = color_in_regions(&mut coloring, 40, &items, region_len);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            proptest::prop_assert!(sorted.iter().copied().eq(0..items.len() as u32));
            let constrained = items.iter().filter(|i| i.is_some()).count();
            proptest::prop_assert!(order[constrained..].iter().all(|&k| items[k as usize].is_none()));
            let mut regions = Vec::new();
            for region in 0..coloring.region_ends.len() {
                let groups = &coloring.ranges[run(&coloring.region_ends, region)];
                let (overflow, colors) = groups.split_last().unwrap();
                proptest::prop_assert!(colors.len() <= coloring.color_count());
                for &range in colors {
                    let mut seen = [false; 40];
                    for b in bodies_of(&order, &items, range) {
                        proptest::prop_assert!(!seen[b as usize], "body {} twice in a colour", b);
                        seen[b as usize] = true;
                    }
                }
                // A region's constraints are one run of items.
                let all = [groups[0][0], 0, overflow[2]];
                let first = order[all[0] as usize..all[2] as usize].iter().map(|&k| k as usize / region_len);
                proptest::prop_assert!(first.clone().all(|r| Some(r) == first.clone().next()));
                regions.push(all);
            }
            proptest::prop_assert_eq!(regions.last().map_or(0, |r| r[2]) as usize, constrained);
            // Place `p` names the region cut from items `p * region_len..`.
            let mut places = coloring.regions_by_place.clone();
            places.sort_unstable();
            proptest::prop_assert!(places.iter().copied().eq(0..regions.len() as u32));
            for (place, &region) in coloring.regions_by_place.iter().enumerate() {
                let [begin, _, end] = regions[region as usize];
                let items = &order[begin as usize..end as usize];
                proptest::prop_assert!(items.iter().all(|&k| k as usize / region_len == place));
            }
            let (overflow, colors) = coloring.region_color_ends.split_last().unwrap();
            proptest::prop_assert_eq!(*overflow as usize, regions.len());
            for region_color in 0..colors.len() {
                let mut owner = [usize::MAX; 40];
                for r in run(colors, region_color) {
                    for b in bodies_of(&order, &items, regions[r]) {
                        let o = &mut owner[b as usize];
                        proptest::prop_assert!(*o == usize::MAX || *o == r, "body {} in two regions run together", b);
                        *o = r;
                    }
                }
            }
        }
    }
}

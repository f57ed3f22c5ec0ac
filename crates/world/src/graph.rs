//! Colouring of the constraint graph.
//!
//! Two contact constraints conflict when they share a dynamic body: solving
//! them at the same time would race on that body's velocity. Greedy
//! colouring gives each constraint the lowest colour not yet used by either
//! of its dynamic bodies; all constraints of one colour then touch disjoint
//! bodies and can be solved in any order, on any number of threads, with the
//! same result bit for bit. Static and kinematic bodies are only read by the
//! solver, so they never cause a conflict.
//!
//! A body with more than [`MAX_COLORS`] constraints sends the extra ones to an
//! overflow set, solved on one thread after the coloured sets.

use std::mem::MaybeUninit;

use crate::buffer::assume_written;

/// Colours handed out before constraints overflow.
pub(crate) const MAX_COLORS: usize = 32;

/// The colours in use. The constraints themselves are listed, grouped by
/// colour, in an order that [`Coloring::build`] writes into memory lent to
/// it, since the list is needed only until the constraints are batched.
#[derive(Debug, Default)]
pub(crate) struct Coloring {
    /// `order[r[0]..r[1]]` and `order[r[1]..r[2]]` are the constraints of the
    /// first and second kind of colour `c`, where `r = ranges[c]` and
    /// `order` is what `build` returned; the last range is the overflow set.
    pub ranges: Vec<[u32; 3]>,
}

/// Memory lent to [`Coloring::build`], each slot to be overwritten: per
/// body, the colours its constraints took; per item, its sort key (its
/// colour times two, plus one for the second kind) and its place in the
/// order.
pub(crate) struct ColoringSlots<'a> {
    pub used: &'a mut [MaybeUninit<u32>],
    pub keys: &'a mut [MaybeUninit<u8>],
    pub order: &'a mut [MaybeUninit<u32>],
}

/// What colouring reads of a constraint: its two body indices (`None` for
/// a body that is not dynamic) and whether it is of the second kind.
pub(crate) type Ends = ([Option<u32>; 2], bool);

/// Marks the overflow set among the colours.
const OVERFLOW: u8 = MAX_COLORS as u8;

/// Sort keys: a colour and a kind each, overflow included...
const KEYS: usize = 2 * (MAX_COLORS + 1);
/// ...and one more for the items that need no constraint, sorted last.
const NO_CONSTRAINT: u8 = KEYS as u8;

impl Coloring {
    /// Colours the constraints of `items`, given their [`Ends`], or `None`
    /// for an item that needs no constraint. The slots hold one `used`
    /// entry per body (bounding the body indices) and one key and one order
    /// entry per item. Returns the items' indices grouped by colour (see
    /// [`Coloring::ranges`]).
    pub fn build<'a>(
        &mut self,
        items: impl ExactSizeIterator<Item = Option<Ends>>,
        slots: ColoringSlots<'a>,
    ) -> &'a [u32] {
        assert!(
            slots.keys.len() == items.len() && slots.order.len() == items.len(),
            "one key and one order slot per item"
        );
        for slot in slots.used.iter_mut() {
            slot.write(0);
        }
        // SAFETY: every slot was written just above.
        let used = unsafe { assume_written(slots.used) };
        for (item, key) in items.zip(slots.keys.iter_mut()) {
            let Some((bodies, second)) = item else {
                key.write(NO_CONSTRAINT);
                continue;
            };
            let mut mask = 0u32;
            for b in bodies.iter().flatten() {
                mask |= used[*b as usize];
            }
            let free = (!mask).trailing_zeros() as usize;
            let color = if free < MAX_COLORS {
                for b in bodies.iter().flatten() {
                    used[*b as usize] |= 1 << free;
                }
                free as u8
            } else {
                OVERFLOW
            };
            key.write(2 * color + u8::from(second));
        }
        // SAFETY: the loop wrote one key per item, and there are as many
        // slots as items.
        let keys = unsafe { assume_written(slots.keys) };
        self.group_by_key(keys, slots.order)
    }

    /// Counting sort of item indices by colour and kind (no branch on the
    /// kind, which is close to random), the items without a constraint
    /// last; empty colours dropped.
    fn group_by_key<'a>(&mut self, keys: &[u8], order: &'a mut [MaybeUninit<u32>]) -> &'a [u32] {
        let mut starts = [0u32; KEYS + 2];
        for &k in keys {
            starts[k as usize + 1] += 1;
        }
        for k in 0..=KEYS {
            starts[k + 1] += starts[k];
        }
        self.ranges.clear();
        for c in 0..=MAX_COLORS {
            let range = [starts[2 * c], starts[2 * c + 1], starts[2 * c + 2]];
            if range[0] < range[2] || c == MAX_COLORS {
                self.ranges.push(range);
            }
        }
        let mut cursor = starts;
        for (i, &k) in keys.iter().enumerate() {
            order[cursor[k as usize] as usize].write(i as u32);
            cursor[k as usize] += 1;
        }
        // SAFETY: the counts give each item its own slot, and there are as
        // many slots as items, so every slot was written.
        unsafe { assume_written(order) }
    }

    /// Number of colours in use, overflow excluded.
    pub fn color_count(&self) -> usize {
        self.ranges.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::SharedScratch;

    /// Colours `items` among `bodies` bodies; returns the order.
    fn color(coloring: &mut Coloring, bodies: usize, items: &[Option<Ends>]) -> Vec<u32> {
        let mut scratch = SharedScratch::default();
        let (used, keys, order) = scratch.lend_three(bodies, items.len(), items.len());
        let slots = ColoringSlots { used, keys, order };
        coloring.build(items.iter().copied(), slots).to_vec()
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
}

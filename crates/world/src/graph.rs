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

/// Colours handed out before constraints overflow.
pub(crate) const MAX_COLORS: usize = 32;

/// The result: constraint indices grouped by colour, and within a colour
/// by kind (constraints of the first kind, then of the second).
#[derive(Debug, Default)]
pub(crate) struct Coloring {
    /// `order[r[0]..r[1]]` and `order[r[1]..r[2]]` are the constraints of the
    /// first and second kind of colour `c`, where `r = ranges[c]`; the last
    /// range is the overflow set.
    pub order: Vec<u32>,
    pub ranges: Vec<[u32; 3]>,
    used: Vec<u32>,
    /// Per constraint: its colour times two, plus one for the second kind.
    keys: Vec<u8>,
}

/// Marks the overflow set among the colours.
const OVERFLOW: u8 = MAX_COLORS as u8;

/// Sort keys: a colour and a kind each, overflow included.
const KEYS: usize = 2 * (MAX_COLORS + 1);

impl Coloring {
    /// Colours constraints given, for each, its two body indices (`None`
    /// for a body that is not dynamic) and whether it is of the second
    /// kind. `body_count` bounds the body indices.
    pub fn build(
        &mut self,
        body_count: usize,
        constraints: impl Iterator<Item = ([Option<u32>; 2], bool)>,
    ) {
        self.used.clear();
        self.used.resize(body_count, 0);
        self.keys.clear();
        for (bodies, second) in constraints {
            let mut mask = 0u32;
            for b in bodies.iter().flatten() {
                mask |= self.used[*b as usize];
            }
            let free = (!mask).trailing_zeros() as usize;
            let color = if free < MAX_COLORS {
                for b in bodies.iter().flatten() {
                    self.used[*b as usize] |= 1 << free;
                }
                free as u8
            } else {
                OVERFLOW
            };
            self.keys.push(2 * color + u8::from(second));
        }
        self.group_by_key();
    }

    /// Counting sort of constraint indices by colour and kind (no branch on
    /// the kind, which is close to random); empty colours dropped.
    fn group_by_key(&mut self) {
        let mut starts = [0u32; KEYS + 1];
        for &k in &self.keys {
            starts[k as usize + 1] += 1;
        }
        for k in 0..KEYS {
            starts[k + 1] += starts[k];
        }
        self.ranges.clear();
        for c in 0..=MAX_COLORS {
            let range = [starts[2 * c], starts[2 * c + 1], starts[2 * c + 2]];
            if range[0] < range[2] || c == MAX_COLORS {
                self.ranges.push(range);
            }
        }
        self.order.clear();
        self.order.resize(self.keys.len(), 0);
        let mut cursor = starts;
        for (i, &k) in self.keys.iter().enumerate() {
            self.order[cursor[k as usize] as usize] = i as u32;
            cursor[k as usize] += 1;
        }
    }

    /// Number of colours in use, overflow excluded.
    pub fn color_count(&self) -> usize {
        self.ranges.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_of_one_colour_share_no_dynamic_body() {
        // A chain 0-1-2-3-4 plus every body against the static ground (None).
        let edges: Vec<[Option<u32>; 2]> = (0..4)
            .map(|i| [Some(i), Some(i + 1)])
            .chain((0..5).map(|i| [Some(i), None]))
            .collect();
        let mut coloring = Coloring::default();
        coloring.build(5, edges.iter().map(|&e| (e, false)));
        assert_eq!(coloring.order.len(), edges.len());
        for &[begin, _, end] in &coloring.ranges[..coloring.color_count()] {
            let mut seen = [false; 5];
            for &k in &coloring.order[begin as usize..end as usize] {
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
        let edges: Vec<([Option<u32>; 2], bool)> = (0..4)
            .map(|i| ([Some(2 * i), Some(2 * i + 1)], i % 2 == 1))
            .collect();
        let mut coloring = Coloring::default();
        coloring.build(8, edges.iter().copied());
        assert_eq!(coloring.color_count(), 1);
        assert_eq!(coloring.ranges[0], [0, 2, 4]);
        assert_eq!(coloring.order, vec![0, 2, 1, 3]);
    }

    #[test]
    fn a_body_with_too_many_constraints_overflows() {
        let edges: Vec<[Option<u32>; 2]> = (0..40).map(|_| [Some(0), None]).collect();
        let mut coloring = Coloring::default();
        coloring.build(1, edges.iter().map(|&e| (e, false)));
        let [begin, _, end] = *coloring.ranges.last().unwrap();
        assert_eq!(coloring.color_count(), MAX_COLORS);
        assert_eq!((end - begin) as usize, 40 - MAX_COLORS);
    }
}

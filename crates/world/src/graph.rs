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

/// The result: constraint indices grouped by colour.
#[derive(Debug, Default)]
pub(crate) struct Coloring {
    /// `order[ranges[c].0..ranges[c].1]` are the constraints of colour `c`;
    /// the last range is the overflow set.
    pub order: Vec<u32>,
    pub ranges: Vec<(u32, u32)>,
    used: Vec<u32>,
    colors: Vec<u8>,
    counts: Vec<u32>,
}

/// Marks the overflow set among the colours.
const OVERFLOW: u8 = MAX_COLORS as u8;

impl Coloring {
    /// Colours constraints given, for each, its two body indices and whether
    /// each of them is dynamic. `body_count` bounds the body indices.
    pub fn build(
        &mut self,
        body_count: usize,
        constraints: impl Iterator<Item = [Option<u32>; 2]>,
    ) {
        self.used.clear();
        self.used.resize(body_count, 0);
        self.colors.clear();
        for bodies in constraints {
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
            self.colors.push(color);
        }
        self.group_by_color();
    }

    /// Counting sort of constraint indices by colour; empty colours dropped.
    fn group_by_color(&mut self) {
        self.counts.clear();
        self.counts.resize(MAX_COLORS + 1, 0);
        for &c in &self.colors {
            self.counts[c as usize] += 1;
        }
        let mut starts = [0u32; MAX_COLORS + 2];
        for c in 0..=MAX_COLORS {
            starts[c + 1] = starts[c] + self.counts[c];
        }
        self.ranges.clear();
        for c in 0..=MAX_COLORS {
            if self.counts[c] > 0 || c == MAX_COLORS {
                self.ranges.push((starts[c], starts[c + 1]));
            }
        }
        self.order.clear();
        self.order.resize(self.colors.len(), 0);
        let mut cursor = starts;
        for (i, &c) in self.colors.iter().enumerate() {
            self.order[cursor[c as usize] as usize] = i as u32;
            cursor[c as usize] += 1;
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
        coloring.build(5, edges.iter().copied());
        assert_eq!(coloring.order.len(), edges.len());
        for &(begin, end) in &coloring.ranges[..coloring.color_count()] {
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
    fn a_body_with_too_many_constraints_overflows() {
        let edges: Vec<[Option<u32>; 2]> = (0..40).map(|_| [Some(0), None]).collect();
        let mut coloring = Coloring::default();
        coloring.build(1, edges.iter().copied());
        let (begin, end) = *coloring.ranges.last().unwrap();
        assert_eq!(coloring.color_count(), MAX_COLORS);
        assert_eq!((end - begin) as usize, 40 - MAX_COLORS);
    }
}

//! A bounding-volume tree over shape boxes, built top-down in one pass.
//!
//! Used for the shapes the grid does not hold (walls, kinematic bodies,
//! unusually large dynamic shapes). Building sorts items along the longer
//! axis of their centres and splits at the median, so the tree is balanced
//! and its shape depends only on the input order — never on timing or
//! threads.

use carom_shapes::Aabb;
use glam::Vec2;

/// Items per leaf at most.
const LEAF_SIZE: usize = 4;

#[derive(Debug, Clone, Copy)]
struct Node {
    aabb: Aabb,
    /// For a leaf: first item. For an inner node: index of the left child
    /// (the right child follows the whole left subtree, at `right`).
    start: u32,
    /// For a leaf: number of items. For an inner node: 0.
    count: u32,
    /// Index of the right child of an inner node.
    right: u32,
}

/// A static tree: rebuilt, never updated in place.
#[derive(Debug, Default)]
pub(crate) struct AabbTree {
    nodes: Vec<Node>,
    items: Vec<(u32, Aabb)>,
}

impl AabbTree {
    /// Replaces the contents with `items` (an id and its box each).
    pub fn rebuild(&mut self, items: impl Iterator<Item = (u32, Aabb)>) {
        self.items.clear();
        self.items.extend(items);
        self.nodes.clear();
        if !self.items.is_empty() {
            let n = self.items.len();
            self.build(0, n);
        }
    }

    /// Appends the ids of items whose boxes overlap `aabb`.
    pub fn query(&self, aabb: &Aabb, out: &mut Vec<u32>) {
        self.for_each_overlap(aabb, |id, _| out.push(id));
    }

    /// Calls `f` with the id and box of each item whose box overlaps `aabb`.
    pub fn for_each_overlap(&self, aabb: &Aabb, mut f: impl FnMut(u32, &Aabb)) {
        if self.nodes.is_empty() {
            return;
        }
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            if !node.aabb.overlaps(aabb) {
                continue;
            }
            if node.count > 0 {
                let items = &self.items[node.start as usize..(node.start + node.count) as usize];
                for (id, b) in items {
                    if b.overlaps(aabb) {
                        f(*id, b);
                    }
                }
            } else {
                stack[top] = node.start;
                stack[top + 1] = node.right;
                top += 2;
            }
        }
    }

    /// Builds the subtree over `items[begin..end]` and returns its node index.
    fn build(&mut self, begin: usize, end: usize) -> u32 {
        let slice = &self.items[begin..end];
        let mut aabb = slice[0].1;
        let mut lo = Vec2::splat(f32::INFINITY);
        let mut hi = Vec2::splat(f32::NEG_INFINITY);
        for (_, b) in slice {
            aabb = aabb.union(b);
            lo = lo.min(b.center());
            hi = hi.max(b.center());
        }
        let index = self.nodes.len() as u32;
        self.nodes.push(Node {
            aabb,
            start: begin as u32,
            count: (end - begin) as u32,
            right: 0,
        });
        if end - begin <= LEAF_SIZE {
            return index;
        }
        let spread = hi - lo;
        let axis = usize::from(spread.y > spread.x);
        let mid = begin + (end - begin) / 2;
        self.items[begin..end].select_nth_unstable_by(mid - begin, |p, q| {
            p.1.center()[axis]
                .total_cmp(&q.1.center()[axis])
                .then(p.0.cmp(&q.0))
        });
        let left = self.build(begin, mid);
        let right = self.build(mid, end);
        let node = &mut self.nodes[index as usize];
        node.start = left;
        node.count = 0;
        node.right = right;
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box_at(x: f32, y: f32) -> Aabb {
        Aabb::new(Vec2::new(x, y), Vec2::new(x + 1.0, y + 1.0))
    }

    #[test]
    fn query_finds_exactly_the_overlapping_boxes() {
        let mut tree = AabbTree::default();
        let boxes: Vec<(u32, Aabb)> = (0..100)
            .map(|i| (i, unit_box_at((i % 10) as f32 * 2.0, (i / 10) as f32 * 2.0)))
            .collect();
        tree.rebuild(boxes.iter().copied());
        let probe = Aabb::new(Vec2::new(3.5, 3.5), Vec2::new(6.5, 4.5));
        let mut found = Vec::new();
        tree.query(&probe, &mut found);
        found.sort_unstable();
        let mut expected: Vec<u32> = boxes
            .iter()
            .filter(|(_, b)| b.overlaps(&probe))
            .map(|&(i, _)| i)
            .collect();
        expected.sort_unstable();
        assert_eq!(found, expected);
        assert_eq!(expected, vec![22, 23]);
    }

    #[test]
    fn empty_tree_finds_nothing() {
        let tree = AabbTree::default();
        let mut found = Vec::new();
        tree.query(&unit_box_at(0.0, 0.0), &mut found);
        assert!(found.is_empty());
    }
}

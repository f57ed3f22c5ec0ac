//! Broadphase: which pairs of shapes are close enough to need a manifold.
//!
//! carom's worlds are mostly many small moving shapes of similar size
//! (circles, capsules) and a few large fixed ones (walls). The broadphase
//! is built for that case and stays O(n) per step:
//!
//! - **Small dynamic shapes** go into a uniform grid rebuilt every step by a
//!   counting sort of their cell indices. The cell is at least as large as
//!   every shape in it, so a shape can only overlap shapes whose centres lie
//!   in its own or the eight neighbouring cells. Rebuilding costs two passes
//!   over the shapes and needs no hashing and no incremental bookkeeping.
//! - **Fixed shapes** (on static and kinematic bodies) and **large or fast
//!   dynamic shapes** (whose box grown by a step of motion exceeds twice the
//!   median size, which would otherwise force a coarse grid on everyone) live
//!   in bounding-volume trees: one for static shapes, rebuilt only when they
//!   change, and one for shapes that move, rebuilt every step.
//!
//! Grid shapes do not query the trees one by one: the grid is cut into
//! blocks of 4×4 cells, each block queries both trees once for the tree
//! shapes near it, and a grid shape tests only its block's short list. The
//! test is the same box overlap a tree query makes, so the pairs are the
//! same, at a sixteenth of the tree traversals.
//!
//! A sort-and-sweep or a dynamic tree would also work, but both pay
//! O(n log n) or pointer chasing where the grid pays a counting sort.
//!
//! Pairs are produced per dynamic shape `a` in shape order with partners
//! sorted, so the list comes out sorted by `(a, b)`. That order is
//! independent of the thread count (work is split in fixed chunks) and lets
//! the contact cache match last step's contacts with a linear merge.

use carom_shapes::Aabb;
use glam::Vec2;
use rayon::prelude::*;

use crate::body::{Body, BodyKind};
use crate::collider::Collider;
use crate::tree::AabbTree;

/// A candidate pair of shapes (dense shape indices). `a` is always a shape
/// of a dynamic body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Pair {
    pub a: u32,
    pub b: u32,
}

/// Dynamic shapes handed to one task when finding pairs in parallel. Fixed,
/// so the split does not depend on the number of threads.
const PAIR_CHUNK: usize = 256;

/// Grid cells per block side: each block queries the trees once for the
/// grid shapes in its cells.
const BLOCK: i32 = 4;

/// A dynamic shape whose box, grown by its motion this step, exceeds this
/// multiple of the median shape size leaves the grid for the moving tree.
/// That keeps the grid's cells small (they must hold the largest box) when a
/// few shapes are big or many are falling fast.
const LARGE_FACTOR: f32 = 2.0;

/// The larger side of a box.
#[inline]
fn box_size(b: &Aabb) -> f32 {
    let d = b.max - b.min;
    d.x.max(d.y)
}

/// How a dynamic shape is indexed this step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// In the grid, in this cell.
    Cell(u32),
    /// In the moving tree.
    Large,
}

/// Uniform grid over the small dynamic shapes.
#[derive(Debug, Default)]
struct Grid {
    origin: Vec2,
    inv_cell: f32,
    columns: i32,
    rows: i32,
    /// `cell_start[c]..cell_start[c + 1]` indexes `items` for cell `c`.
    cell_start: Vec<u32>,
    /// Fill position of each cell while sorting.
    cursor: Vec<u32>,
    /// The shapes ordered by cell, then by shape index, each with its box
    /// (grown by motion and half the margin) stored beside it so that a
    /// neighbour scan reads one contiguous run of memory.
    items: Vec<GridItem>,
    /// Side of a cell.
    cell: f32,
    /// Blocks per row of blocks.
    block_columns: i32,
    /// `block_start[k]..block_start[k + 1]` indexes `block_items` for block
    /// `k` (blocks row by row).
    block_start: Vec<u32>,
    /// Per block, the tree shapes (static, kinematic and large dynamic) whose
    /// boxes overlap the block grown by a cell, with those boxes.
    block_items: Vec<(u32, Aabb)>,
}

/// A shape in the grid.
#[derive(Debug, Clone, Copy)]
struct GridItem {
    shape: u32,
    /// Whether the shape's body sleeps (awake neighbours then own the pair).
    sleeping: bool,
    aabb: Aabb,
}

impl Grid {
    #[inline]
    fn cell_coords(&self, p: Vec2) -> (i32, i32) {
        let c = ((p - self.origin) * self.inv_cell).floor();
        (
            (c.x as i32).clamp(0, self.columns - 1),
            (c.y as i32).clamp(0, self.rows - 1),
        )
    }

    /// The block holding cell `(cx, cy)`.
    #[inline]
    fn block_of(&self, (cx, cy): (i32, i32)) -> usize {
        ((cy / BLOCK) * self.block_columns + cx / BLOCK) as usize
    }

    /// The tree shapes near block `k`, with their boxes.
    #[inline]
    fn block_items(&self, k: usize) -> &[(u32, Aabb)] {
        &self.block_items[self.block_start[k] as usize..self.block_start[k + 1] as usize]
    }

    /// Lists, per block, the tree shapes whose boxes overlap the block's
    /// cells grown by one cell. A grid shape's query box lies within its
    /// cell grown by half its size plus the margin, which is less than a
    /// cell, so the list holds every tree shape the shape can pair with.
    fn build_blocks(&mut self, static_tree: &AabbTree, moving_tree: &AabbTree) {
        self.block_start.clear();
        self.block_items.clear();
        if self.items.is_empty() {
            self.block_columns = 0;
            return;
        }
        self.block_columns = (self.columns + BLOCK - 1) / BLOCK;
        let block_rows = (self.rows + BLOCK - 1) / BLOCK;
        let side = BLOCK as f32 * self.cell;
        self.block_start.push(0);
        for by in 0..block_rows {
            for bx in 0..self.block_columns {
                let min = self.origin + Vec2::new(bx as f32, by as f32) * side;
                let area = Aabb::new(min, min + Vec2::splat(side)).expanded(self.cell);
                let items = &mut self.block_items;
                static_tree.for_each_overlap(&area, |id, b| items.push((id, *b)));
                moving_tree.for_each_overlap(&area, |id, b| items.push((id, *b)));
                self.block_start.push(self.block_items.len() as u32);
            }
        }
    }

    /// The items of cells `first..=last` of one row: one contiguous run,
    /// since items are ordered by cell and cells row by row.
    #[inline]
    fn row_run(&self, row: i32, first: i32, last: i32) -> &[GridItem] {
        let begin = (row * self.columns + first) as usize;
        let end = (row * self.columns + last) as usize + 1;
        &self.items[self.cell_start[begin] as usize..self.cell_start[end] as usize]
    }
}

/// Finds candidate pairs each step. Keeps its buffers between steps so a
/// step allocates nothing once sizes settle.
#[derive(Debug, Default)]
pub(crate) struct BroadPhase {
    pairs: Vec<Pair>,
    /// Per chunk: its pairs and a scratch list of partners.
    chunk_pairs: Vec<(Vec<Pair>, Vec<u32>)>,
    dynamic_shapes: Vec<u32>,
    slots: Vec<Slot>,
    sizes: Vec<f32>,
    /// Unmoved box sizes of the dynamic shapes, for finding their median.
    median_scratch: Vec<f32>,
    /// Per shape: its box grown by how far its body may move this step.
    fat: Vec<Aabb>,
    grid: Grid,
    static_tree: AabbTree,
    static_version: u64,
    moving_tree: AabbTree,
}

impl BroadPhase {
    /// Candidate pairs for this step, sorted by `(a, b)`. Two shapes pair up
    /// when their boxes, each grown by how far its body may move in `dt` and
    /// by `margin / 2`, overlap, their bodies differ and at least one body is
    /// dynamic. `static_version` changes whenever a static shape was added,
    /// removed or moved.
    pub fn find_pairs(
        &mut self,
        bodies: &[Body],
        colliders: &[Collider],
        margin: f32,
        dt: f32,
        static_version: u64,
    ) -> &[Pair] {
        self.fatten(bodies, colliders, dt);
        self.classify(bodies, colliders);
        self.build_trees(bodies, colliders, static_version);
        self.build_grid(bodies, colliders, margin);
        self.grid.build_blocks(&self.static_tree, &self.moving_tree);
        self.collect_pairs(bodies, colliders, margin);
        &self.pairs
    }

    /// Shapes of static and kinematic bodies whose boxes overlap `aabb`.
    pub fn query_fixed(
        &self,
        aabb: &Aabb,
        bodies: &[Body],
        colliders: &[Collider],
        out: &mut Vec<u32>,
    ) {
        out.clear();
        self.static_tree.query(aabb, out);
        let statics = out.len();
        self.moving_tree.query(aabb, out);
        let mut i = statics;
        while i < out.len() {
            let body = colliders[out[i] as usize].body as usize;
            if bodies[body].kind == BodyKind::Dynamic {
                out.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Grows each moving shape's box by its body's motion bound for the step.
    fn fatten(&mut self, bodies: &[Body], colliders: &[Collider], dt: f32) {
        self.fat.clear();
        self.fat.extend(colliders.iter().map(|c| {
            let body = &bodies[c.body as usize];
            if body.kind == BodyKind::Static {
                c.aabb
            } else {
                c.aabb.expanded(body.motion_bound(dt))
            }
        }));
    }

    /// Splits dynamic shapes into grid shapes and large ones.
    fn classify(&mut self, bodies: &[Body], colliders: &[Collider]) {
        self.dynamic_shapes.clear();
        self.sizes.clear();
        self.median_scratch.clear();
        for (i, c) in colliders.iter().enumerate() {
            if bodies[c.body as usize].kind == BodyKind::Dynamic {
                self.dynamic_shapes.push(i as u32);
                self.sizes.push(box_size(&self.fat[i]));
                self.median_scratch.push(box_size(&c.aabb));
            }
        }
        self.slots.clear();
        self.slots.resize(colliders.len(), Slot::Large);
        if self.dynamic_shapes.is_empty() {
            return;
        }
        let mid = self.median_scratch.len() / 2;
        let (_, median, _) = self
            .median_scratch
            .select_nth_unstable_by(mid, f32::total_cmp);
        let limit = LARGE_FACTOR * median.max(f32::MIN_POSITIVE);
        for (k, &s) in self.dynamic_shapes.iter().enumerate() {
            if self.sizes[k] <= limit {
                self.slots[s as usize] = Slot::Cell(0);
            }
        }
    }

    fn build_trees(&mut self, bodies: &[Body], colliders: &[Collider], static_version: u64) {
        if self.static_version != static_version || self.static_tree.is_empty() {
            let statics = colliders
                .iter()
                .enumerate()
                .filter(|(_, c)| bodies[c.body as usize].kind == BodyKind::Static)
                .map(|(i, c)| (i as u32, c.aabb));
            self.static_tree.rebuild(statics);
            self.static_version = static_version;
        }
        let slots = &self.slots;
        let fat = &self.fat;
        let moving =
            colliders
                .iter()
                .enumerate()
                .filter(|(i, c)| match bodies[c.body as usize].kind {
                    BodyKind::Static => false,
                    BodyKind::Kinematic => true,
                    BodyKind::Dynamic => slots[*i] == Slot::Large,
                });
        self.moving_tree
            .rebuild(moving.map(|(i, _)| (i as u32, fat[i])));
    }

    /// Counting sort of grid shapes by the cell holding their box centre.
    fn build_grid(&mut self, bodies: &[Body], colliders: &[Collider], margin: f32) {
        let half_margin = 0.5 * margin;
        let mut lo = Vec2::splat(f32::INFINITY);
        let mut hi = Vec2::splat(f32::NEG_INFINITY);
        let mut largest: f32 = 0.0;
        let mut count = 0usize;
        for (k, &s) in self.dynamic_shapes.iter().enumerate() {
            if self.slots[s as usize] != Slot::Large {
                let c = self.fat[s as usize].center();
                lo = lo.min(c);
                hi = hi.max(c);
                largest = largest.max(self.sizes[k]);
                count += 1;
            }
        }
        let grid = &mut self.grid;
        grid.items.clear();
        if count == 0 {
            grid.columns = 0;
            grid.rows = 0;
            return;
        }
        // A cell no smaller than the largest box plus the margin keeps
        // overlaps within the 3×3 neighbourhood; growing it so that
        // cells ≤ 4·count bounds memory for sparse worlds.
        let extent = (hi - lo).max(Vec2::splat(f32::MIN_POSITIVE));
        let sparse_cell = (extent.x * extent.y / (4.0 * count as f32)).sqrt();
        let cell = (largest + margin).max(sparse_cell).max(1e-3);
        grid.origin = lo;
        grid.cell = cell;
        grid.inv_cell = 1.0 / cell;
        grid.columns = ((extent.x / cell) as i32 + 1).max(1);
        grid.rows = ((extent.y / cell) as i32 + 1).max(1);
        let cells = (grid.columns * grid.rows) as usize;
        grid.cell_start.clear();
        grid.cell_start.resize(cells + 1, 0);
        for &s in &self.dynamic_shapes {
            if self.slots[s as usize] != Slot::Large {
                let (cx, cy) = grid.cell_coords(self.fat[s as usize].center());
                let cell = (cy * grid.columns + cx) as u32;
                self.slots[s as usize] = Slot::Cell(cell);
                grid.cell_start[cell as usize + 1] += 1;
            }
        }
        for c in 0..cells {
            grid.cell_start[c + 1] += grid.cell_start[c];
        }
        let empty = GridItem {
            shape: 0,
            sleeping: false,
            aabb: Aabb::new(Vec2::ZERO, Vec2::ZERO),
        };
        grid.items.resize(count, empty);
        grid.cursor.clear();
        grid.cursor.extend_from_slice(&grid.cell_start);
        for &s in &self.dynamic_shapes {
            if let Slot::Cell(cell) = self.slots[s as usize] {
                let at = &mut grid.cursor[cell as usize];
                let body = colliders[s as usize].body as usize;
                grid.items[*at as usize] = GridItem {
                    shape: s,
                    sleeping: bodies[body].is_sleeping(),
                    aabb: self.fat[s as usize].expanded(half_margin),
                };
                *at += 1;
            }
        }
    }

    fn collect_pairs(&mut self, bodies: &[Body], colliders: &[Collider], margin: f32) {
        let chunks = self.dynamic_shapes.len().div_ceil(PAIR_CHUNK);
        self.chunk_pairs.resize_with(chunks, Default::default);
        let finder = PairFinder {
            bodies,
            colliders,
            fat: &self.fat,
            half_margin: 0.5 * margin,
            slots: &self.slots,
            grid: &self.grid,
            static_tree: &self.static_tree,
            moving_tree: &self.moving_tree,
        };
        self.chunk_pairs
            .par_iter_mut()
            .zip(self.dynamic_shapes.par_chunks(PAIR_CHUNK))
            .for_each(|((out, scratch), shapes)| {
                out.clear();
                for &a in shapes {
                    finder.pairs_of(a, scratch, out);
                }
            });
        self.pairs.clear();
        for (chunk, _) in &self.chunk_pairs[..chunks] {
            self.pairs.extend_from_slice(chunk);
        }
    }
}

/// Read-only view used by the parallel pair search.
struct PairFinder<'a> {
    bodies: &'a [Body],
    colliders: &'a [Collider],
    fat: &'a [Aabb],
    half_margin: f32,
    slots: &'a [Slot],
    grid: &'a Grid,
    static_tree: &'a AabbTree,
    moving_tree: &'a AabbTree,
}

impl PairFinder<'_> {
    /// Appends the pairs `(a, b)` owned by dynamic shape `a`, sorted by `b`.
    ///
    /// Ownership rule, so each pair appears once: a pair of two awake
    /// dynamic shapes both in the grid, or both large, belongs to the lower
    /// index; a pair of a grid shape and a large shape belongs to the grid
    /// shape (it finds the large one in the moving tree); a pair with a fixed
    /// shape belongs to the dynamic shape.
    ///
    /// Sleeping shapes only look for moving partners in the moving tree
    /// (large awake shapes and moving kinematic ones), so awake grid shapes
    /// own their pairs with sleeping shapes, and awake large shapes leave
    /// their pairs with sleeping ones to the sleeper. Pairs among bodies that
    /// cannot move are not reported at all: their contacts are frozen.
    fn pairs_of(&self, a: u32, scratch: &mut Vec<u32>, out: &mut Vec<Pair>) {
        scratch.clear();
        let box_a = self.fat[a as usize].expanded(self.half_margin);
        let query = box_a.expanded(self.half_margin);
        let body_a = self.colliders[a as usize].body;
        if self.bodies[body_a as usize].is_sleeping() {
            self.moving_tree.query(&query, scratch);
            scratch.retain(|&b| self.body_of(b).is_moving());
        } else {
            match self.slots[a as usize] {
                Slot::Cell(_) => {
                    let cell = self.grid.cell_coords(self.fat[a as usize].center());
                    self.grid_neighbours(a, cell, &box_a, scratch);
                    let near = self.grid.block_items(self.grid.block_of(cell));
                    scratch.extend(
                        near.iter()
                            .filter(|(_, b)| b.overlaps(&query))
                            .map(|&(id, _)| id),
                    );
                }
                Slot::Large => {
                    self.static_tree.query(&query, scratch);
                    let from = scratch.len();
                    self.moving_tree.query(&query, scratch);
                    let mut i = from;
                    while i < scratch.len() {
                        let b = self.body_of(scratch[i]);
                        let owned_by_b =
                            b.kind == BodyKind::Dynamic && (b.is_sleeping() || scratch[i] <= a);
                        if owned_by_b {
                            scratch.swap_remove(i);
                        } else {
                            i += 1;
                        }
                    }
                }
            }
        }
        scratch.sort_unstable();
        for &b in scratch.iter() {
            if self.colliders[b as usize].body != body_a {
                out.push(Pair { a, b });
            }
        }
    }

    /// Grid shapes whose grown boxes overlap `a`'s: awake ones with a higher
    /// index than `a`, and sleeping ones.
    fn grid_neighbours(&self, a: u32, (cx, cy): (i32, i32), box_a: &Aabb, out: &mut Vec<u32>) {
        let grid = self.grid;
        let (first, last) = ((cx - 1).max(0), (cx + 1).min(grid.columns - 1));
        for row in (cy - 1).max(0)..=(cy + 1).min(grid.rows - 1) {
            for item in grid.row_run(row, first, last) {
                if (item.shape > a || item.sleeping) && box_a.overlaps(&item.aabb) {
                    out.push(item.shape);
                }
            }
        }
    }

    #[inline]
    fn body_of(&self, shape: u32) -> &Body {
        &self.bodies[self.colliders[shape as usize].body as usize]
    }
}

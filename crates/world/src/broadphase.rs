//! Broadphase: which pairs of shapes are close enough to need a manifold.
//!
//! **Persistent pairs.** Each step a moving shape *needs* a box: its
//! shape's box grown by how far its body may move in the step and by half
//! the speculative margin. Two shapes can touch within the step only if
//! their needed boxes overlap. Each shape also keeps an *enlarged box*
//! containing its needed box, and the candidate pairs are kept between
//! steps: every pair whose enlarged boxes overlap. A slow shape's enlarged
//! box is its needed box grown by a slack (a tenth of its size, at most
//! [`SLACK_MAX`]), so it stays valid while the shape settles; a fast shape
//! leaves any box within a step or two, so its box gets no slack.
//!
//! A step looks again only at the shapes whose needed box left their
//! enlarged box ("moved" shapes): their pairs that no longer overlap are
//! dropped, and their new partners are found and merged in. A settled pile
//! moves no shape, so its broadphase costs one box test per shape. The kept
//! pairs are a superset of the pairs whose needed boxes overlap; the pairs
//! handed to the narrowphase are picked from them by the needed boxes, so
//! they are exactly those a search from scratch would give.
//!
//! **Wall bands.** A long tilted wall's box covers everything beside it (a
//! turning drum's walls each span the whole drum), so boxes alone would hand
//! the narrowphase a pair for every shape near it. A static or kinematic
//! segment or stadium therefore also has a *band*: the strip along its line
//! that another shape's needed box must reach, `|n·x − d| ≤ r + motion +
//! margin/2`. A box beyond the band is further from the wall than the step
//! could close, so the pair is left out.
//!
//! **Finding partners.** carom's worlds are mostly many small moving shapes
//! of similar size (circles, capsules) and a few large fixed ones (walls):
//!
//! - Small dynamic shapes go into a uniform grid, rebuilt when something
//!   moved by a counting sort of their cell indices. A cell is at least as
//!   large as every enlarged box in it, so a shape meets only shapes whose
//!   centres lie in nearby cells. No hashing and no incremental bookkeeping.
//! - Static shapes, kinematic shapes and large dynamic shapes (whose
//!   enlarged box exceeds twice the median size, which would otherwise
//!   force a coarse grid on everyone) live in three bounding-volume trees;
//!   the static one is rebuilt only when shapes are added or removed. Grid
//!   shapes do not query the trees one by one: the grid is cut into blocks
//!   of 4×4 cells, each block queries the trees once, and a grid shape
//!   tests the same box overlap against its block's list.
//!
//! When only a handful of shapes moved (at most [`FEW_MOVED`], as a
//! settling pile does step after step), the grid and trees are not rebuilt:
//! each moved shape tests every box, which costs less than building them.
//!
//! When many shapes moved (a quarter or more), every pair is found afresh:
//! the grid is swept cell by cell, each pair of neighbouring cells once, and
//! the pairs are put in order by two counting sorts. Otherwise the moved
//! shapes query the index and their new pairs are sorted and merged into
//! the kept list. Either way the list is sorted by `(a, b)` and independent
//! of the thread count (work is split in fixed chunks).

use std::mem::MaybeUninit;
use std::ops::Range;

use carom_shapes::{Aabb, Shape, Transform};
use glam::Vec2;
use rayon::prelude::*;

use crate::body::{Body, BodyKind};
use crate::buffer::{assume_written, refill, resize_to_overwrite, Room};
use crate::collider::{Collider, StepCollider};
use crate::threading::{share_each, share_slots, HelperBoard, Sharing, Threading};
use crate::tree::AabbTree;

/// A candidate pair of shapes (dense shape indices). `a` is a shape of a
/// dynamic body; when both are dynamic, `a < b`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Pair {
    pub a: u32,
    pub b: u32,
}

/// One search task's buffers: the pairs it found and a scratch list of
/// partners.
#[derive(Debug, Default)]
struct ChunkBuffers {
    pairs: Vec<Pair>,
    scratch: Vec<u32>,
}

/// Shapes handed to one task when finding pairs in parallel (queriers, or
/// grid items whose cells are swept). Fixed, so the split does not depend
/// on the number of threads.
const PAIR_CHUNK: usize = 256;

/// A dynamic shape whose enlarged box exceeds this multiple of the median
/// shape size leaves the grid for the moving tree. That keeps the grid's
/// cells small (they must hold the largest box) when a few shapes are big
/// or many are falling fast.
const LARGE_FACTOR: f32 = 2.0;

/// At most this fraction of the dynamic shapes (or [`MIN_LARGE`] of them)
/// goes to the moving tree: when more are large (a falling crowd is large
/// beside a resting one), the grid's cells grow instead, since a tree query
/// and the tree shapes listed in every block they cover cost more than a
/// coarser grid.
const MAX_LARGE_FRACTION: f32 = 0.05;
/// So many large shapes may always go to the moving tree, however few the
/// dynamic shapes.
const MIN_LARGE: usize = 16;

/// At most this many grid cells along either axis, so that rounding cell
/// indices stays far below a cell (see [`Index::grid_layout`]).
const MAX_CELLS_ACROSS: f32 = 65536.0;

/// Grid cells per block side: each block queries the trees once for the
/// grid shapes in its cells.
const BLOCK: i32 = 4;

/// Slack of an enlarged box, as a fraction of the shape's box size...
const SLACK_FRACTION: f32 = 0.1;
/// ...and at most this, metres: enough that resting and slowly moving
/// shapes stay inside their boxes, small enough to add few pairs.
const SLACK_MAX: f32 = 0.1;

/// When at most this many shapes moved, their partners are found by
/// testing every box rather than through a grid built for them: up to about
/// this many, testing every box costs less than building the grid.
const FEW_MOVED: usize = 16;

/// When at least this fraction of the shapes moved, all pairs are found
/// afresh instead of merging. Either way the pairs come out the same, so
/// this only trades the cost of the two searches: on the hopper, a search
/// around moved shapes plus its merge costs about what a full search does
/// once some 15 % of them moved (broadphase on one thread 0.368 → 0.364 s
/// against a quarter, on two 0.262 → 0.260 s; capsules and tumbler alike;
/// a tenth was no better on two threads and worse on the tumbler).
const REBUILD_FRACTION: f32 = 0.15;

/// Kept pairs from which two threads pick the near ones, each half: below
/// this, moving the second half's picks and meeting costs about what the
/// second thread saves.
const NEAR_SHARED_MIN: usize = 8_192;

/// Shapes from which two threads update the boxes, each half.
const BOXES_SHARED_MIN: usize = 8_192;

/// Grid shapes from which one thread sorts them into cells while another
/// rebuilds the trees and lists the blocks.
const GRID_SHARED_MIN: usize = 8_192;

/// Shapes from which the pairs found by a full search are sorted on two
/// threads.
const SORT_SHARED_MIN: usize = 8_192;

/// Puts the large shapes of `slots` back among the grid ones (in one pass)
/// and writes `size(&of[i])` of each grid shape `i` into `sizes`, in
/// order; returns how many it wrote.
fn regrid_noting_sizes<T>(
    slots: &mut [Slot],
    of: &[T],
    size: impl Fn(&T) -> f32,
    sizes: &mut [MaybeUninit<f32>],
) -> usize {
    let mut count = 0;
    for (slot, item) in slots.iter_mut().zip(of) {
        if *slot == Slot::Large {
            *slot = Slot::Grid;
        }
        if *slot == Slot::Grid {
            sizes[count].write(size(item));
            count += 1;
        }
    }
    count
}

/// The larger side of a box.
#[inline]
fn box_size(b: &Aabb) -> f32 {
    let d = b.max - b.min;
    d.x.max(d.y)
}

/// The strip `|normal·x − offset| ≤ half_width` that a shape must reach to
/// touch a wall this step (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Band {
    normal: Vec2,
    offset: f32,
    half_width: f32,
}

impl Band {
    /// The band of a segment or stadium placed by `xf` whose points move at
    /// most `reach − margin/2` this step; `None` for other shapes.
    fn of_wall(shape: &Shape, xf: &Transform, reach: f32) -> Option<Band> {
        let (a, b, radius) = match shape {
            Shape::Segment(s) => (s.a(), s.b(), 0.0),
            Shape::Stadium(s) => (s.a(), s.b(), s.radius()),
            Shape::Circle(_) | Shape::Sector(_) => return None,
        };
        let (a, b) = (xf.apply(a), xf.apply(b));
        let normal = (b - a).perp().try_normalize()?;
        Some(Band {
            normal,
            offset: normal.dot(a),
            half_width: radius + reach,
        })
    }

    /// Whether box `b` reaches into the band: the distance from its centre
    /// to the line, less its half extent along the normal, is at most the
    /// half width.
    #[inline]
    fn reaches(&self, b: &Aabb) -> bool {
        let center = 0.5 * (b.min + b.max);
        let half = 0.5 * (b.max - b.min);
        let from_line = (self.normal.dot(center) - self.offset).abs();
        from_line - self.normal.abs().dot(half) <= self.half_width
    }
}

/// How a shape is indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// A small dynamic shape, in the grid.
    Grid,
    /// A large dynamic shape, in the large-shape tree.
    Large,
    /// A kinematic shape, in the kinematic tree.
    Kinematic,
    /// A static shape, in the static tree.
    Static,
}

/// Uniform grid over the small dynamic shapes' enlarged boxes, built for
/// a step in which shapes moved. Its cells and items live in memory lent
/// to the step (see [`Index::build_trees_and_grid`]).
#[derive(Debug)]
struct Grid<'a> {
    origin: Vec2,
    /// Side of a cell.
    cell: f32,
    inv_cell: f32,
    columns: i32,
    rows: i32,
    /// `cell_start[c]..cell_start[c + 1]` indexes `items` for cell `c`.
    cell_start: &'a [u32],
    /// The shapes ordered by cell, then by shape index, each with its
    /// enlarged box beside it so that a scan reads one contiguous run.
    items: &'a [GridItem],
    /// Blocks per row of blocks.
    block_columns: i32,
    blocks: &'a BlockLists,
}

/// Per block of [`BLOCK`]² cells, the tree shapes whose boxes overlap the
/// block's cells grown by one cell, with those boxes. Kept from step to
/// step (it is small), unlike the grid's cells and items.
#[derive(Debug, Default)]
struct BlockLists {
    /// `start[k]..start[k + 1]` indexes `items` for block `k` (blocks row
    /// by row).
    start: Vec<u32>,
    items: Vec<(u32, Aabb)>,
}

/// A shape in the grid.
#[derive(Debug, Clone, Copy)]
struct GridItem {
    shape: u32,
    /// The shape's body: shapes of one body make no pair.
    owner: u32,
    aabb: Aabb,
}

impl Grid<'_> {
    /// The cell holding `p`, clamped to the grid. Converting truncates
    /// towards zero rather than flooring, which differs only below zero,
    /// where both clamp to the first cell; and it needs no `floor`, a
    /// library call on the baseline x86-64 target.
    #[inline]
    fn cell_coords(&self, p: Vec2) -> (i32, i32) {
        cell_coords(p, self.origin, self.inv_cell, self.columns, self.rows)
    }

    /// The items of cells `first..=last` of one row: one contiguous run,
    /// since items are ordered by cell and cells row by row.
    #[inline]
    fn row_run(&self, row: i32, first: i32, last: i32) -> &[GridItem] {
        let begin = (row * self.columns + first) as usize;
        let end = (row * self.columns + last) as usize + 1;
        &self.items[self.cell_start[begin] as usize..self.cell_start[end] as usize]
    }

    /// Appends to `out` every grid shape that `wanted` accepts and whose box
    /// overlaps `query`. A grid box is at most a cell wide and its centre
    /// lies in its cell, so only cells whose centres lie within half a cell
    /// of `query` can hold one. The scan has no branch per item (see
    /// [`push_passing`]).
    #[inline]
    fn collect_overlaps(&self, query: &Aabb, wanted: impl Fn(u32) -> bool, out: &mut Vec<u32>) {
        if self.items.is_empty() {
            return;
        }
        let half = Vec2::splat(0.5 * self.cell);
        let (x0, y0) = self.cell_coords(query.min - half);
        let (x1, y1) = self.cell_coords(query.max + half);
        for row in y0..=y1 {
            push_passing(out, self.row_run(row, x0, x1), |item| {
                let passes = wanted(item.shape) & query.overlaps(&item.aabb);
                (item.shape, passes)
            });
        }
    }

    /// The cells whose first item lies in `first..first + count` (empty
    /// cells included): consecutive runs of these cover every cell with
    /// items once.
    fn cells_beginning_in(&self, first: usize, count: usize) -> std::ops::Range<usize> {
        let starts = &self.cell_start[..self.cell_start.len() - 1];
        let from = |item: usize| starts.partition_point(|&s| (s as usize) < item);
        from(first)..from(first + count)
    }

    /// The tree shapes near the block holding point `p`, with their boxes.
    #[inline]
    fn block_items(&self, p: Vec2) -> &[(u32, Aabb)] {
        let (x, y) = self.cell_coords(p);
        self.block_items_of_cell(x, y)
    }

    /// The tree shapes near the block holding cell `(x, y)`, with their
    /// boxes.
    #[inline]
    fn block_items_of_cell(&self, x: i32, y: i32) -> &[(u32, Aabb)] {
        let k = ((y / BLOCK) * self.block_columns + x / BLOCK) as usize;
        let start = &self.blocks.start;
        &self.blocks.items[start[k] as usize..start[k + 1] as usize]
    }
}

impl BlockLists {
    /// Lists, per block of the grid of `columns` × `rows` cells of side
    /// `cell` from `origin`, the tree shapes whose boxes overlap the
    /// block's cells grown by one cell. A grid shape's box lies within its
    /// cell grown by half a cell, so the list holds every tree shape it
    /// meets. Returns the blocks per row.
    fn build(&mut self, layout: &GridLayout, trees: &[&AabbTree]) -> i32 {
        let GridLayout {
            origin,
            cell,
            columns,
            rows,
        } = *layout;
        self.start.clear();
        self.items.clear();
        let block_columns = (columns + BLOCK - 1) / BLOCK;
        let block_rows = (rows + BLOCK - 1) / BLOCK;
        let side = BLOCK as f32 * cell;
        self.start.push(0);
        for by in 0..block_rows {
            for bx in 0..block_columns {
                let min = origin + Vec2::new(bx as f32, by as f32) * side;
                let area = Aabb::new(min, min + Vec2::splat(side)).expanded(cell);
                for tree in trees {
                    let items = &mut self.items;
                    tree.for_each_overlap(&area, |id, b| items.push((id, *b)));
                }
                self.start.push(self.items.len() as u32);
            }
        }
        block_columns
    }
}

/// Keeps the candidate pairs from step to step, and its buffers too, so a
/// step allocates nothing once sizes settle.
#[derive(Debug, Default)]
pub(crate) struct BroadPhase {
    /// Every pair whose enlarged boxes overlap (and that may collide),
    /// sorted by `(a, b)`.
    pairs: Vec<Pair>,
    search: Search,
    blocks: BlockLists,
    /// Cells of the last grid built, to ask room for the next.
    grid_cells: usize,
    /// Used only when the room lent to a step falls short (see
    /// [`BroadPhase::room_hint`]).
    spare: Spare,
    /// The `static_version` the index was built for.
    static_version: Option<u64>,
    index: Index,
}

/// The buffers of a search for pairs.
#[derive(Debug, Default)]
struct Search {
    /// The shapes that look for partners this step, in shape order.
    queriers: Vec<u32>,
    /// Per search task: its buffers.
    chunks: Vec<ChunkBuffers>,
}

/// Buffers a step takes from its room, or from here when the room falls
/// short (each is freed again once the room suffices).
#[derive(Debug, Default)]
struct Spare {
    /// The pairs whose needed boxes overlap: what the narrowphase gets.
    near: Vec<Pair>,
    /// The pairs sorted by `b`, on their way to being sorted by `(a, b)`.
    by_b: Vec<Pair>,
    /// Per shape, twice: where its pairs begin while all pairs are sorted.
    starts: Vec<u32>,
    /// Box sizes of the dynamic shapes, for finding their median.
    sizes: Vec<f32>,
    /// The grid's cell starts and items.
    cell_start: Vec<u32>,
    grid_items: Vec<GridItem>,
    /// Per cell, the front half's cursors while two threads sort the grid
    /// shapes into cells.
    front_cursors: Vec<u32>,
    /// Per shape, its cell while the grid shapes are sorted into cells.
    cells: Vec<u32>,
}

/// A grid's spare buffers (see [`Spare`]).
struct GridSpare<'a> {
    cell_start: &'a mut Vec<u32>,
    items: &'a mut Vec<GridItem>,
    front_cursors: &'a mut Vec<u32>,
    cells: &'a mut Vec<u32>,
}

/// The boxes and the structures that find overlapping ones: what the
/// parallel pair search reads.
#[derive(Debug, Default)]
struct Index {
    /// Per shape: the box its pairs were found with.
    enlarged: Vec<Aabb>,
    /// Per shape: whether its needed box left its enlarged box this step.
    moved: Vec<bool>,
    /// Per shape: the larger side of its tight box this step.
    sizes: Vec<f32>,
    /// The bands of the static walls (kept while the shapes stay the same)
    /// and of the kinematic ones (this step's), each sorted by shape.
    static_bands: Vec<(u32, Band)>,
    kinematic_bands: Vec<(u32, Band)>,
    back_bands: BandLists,
    slots: Vec<Slot>,
    /// Per shape: its body, so the search never reads bodies or colliders.
    owners: Vec<u32>,
    trees: Trees,
    /// The box size above which the last classification sent a grid shape
    /// to the large-shape tree.
    large_limit: f32,
}

/// What every shape's box update reads alike.
struct BoxStep<'a> {
    bodies: &'a [Body],
    half_margin: f32,
    dt: f32,
    fresh: bool,
}

/// A run of shapes whose boxes are updated together, from shape `first`
/// on: their slots in each per-shape array, and the lists their walls'
/// bands go to.
struct BoxPart<'a> {
    first: usize,
    colliders: &'a [Collider],
    views: &'a mut [MaybeUninit<StepCollider>],
    needed: &'a mut [MaybeUninit<Aabb>],
    enlarged: &'a mut [Aabb],
    moved: &'a mut [bool],
    sizes: &'a mut [f32],
    static_bands: &'a mut Vec<(u32, Band)>,
    kinematic_bands: &'a mut Vec<(u32, Band)>,
}

impl BoxPart<'_> {
    /// Updates the part's shapes (see [`Index::update_boxes`]); returns how
    /// many moved.
    fn update(&mut self, step: &BoxStep) -> usize {
        let BoxStep {
            bodies,
            half_margin,
            dt,
            fresh,
        } = *step;
        let mut count = 0;
        let boxes = self.needed.iter_mut().zip(self.enlarged.iter_mut());
        let shapes = self.colliders.iter().zip(self.views.iter_mut());
        let shapes = shapes.zip(self.sizes.iter_mut());
        for (i, ((((c, view), size), (needed, enlarged)), moved)) in
            shapes.zip(boxes).zip(self.moved.iter_mut()).enumerate()
        {
            let body = &bodies[c.body as usize];
            let motion = match body.kind {
                BodyKind::Static => 0.0,
                _ => body.motion_bound(dt),
            };
            view.write(StepCollider::new(c, body, motion));
            // The shapes' boxes are not kept from step to step: each is
            // worked out here, where the shape and its body are read anyway.
            let aabb = c.shape.aabb_at(&body.transform);
            *size = box_size(&aabb);
            let needed = *needed.write(aabb.expanded(motion + half_margin));
            let bands = match body.kind {
                BodyKind::Static if fresh => Some(&mut *self.static_bands),
                BodyKind::Kinematic => Some(&mut *self.kinematic_bands),
                _ => None,
            };
            if let Some(bands) = bands {
                let band = Band::of_wall(&c.shape, &body.transform, motion + half_margin);
                bands.extend(band.map(|band| ((self.first + i) as u32, band)));
            }
            *moved = fresh || !enlarged.contains(&needed);
            if *moved {
                *enlarged = needed.expanded(slack(body, &aabb, motion));
                count += 1;
            }
        }
        count
    }
}

/// The bands found in the back part of the shapes (see [`BoxPart`]),
/// appended to the index's own once both parts are done.
#[derive(Debug, Default)]
struct BandLists {
    statics: Vec<(u32, Band)>,
    kinematics: Vec<(u32, Band)>,
}

impl BroadPhase {
    /// Bytes of room a step should lend [`BroadPhase::find_pairs`] for
    /// `shapes` shapes: what it takes if the pairs grow by a quarter. With
    /// less, it uses buffers of its own.
    pub fn room_hint(&self, shapes: usize) -> usize {
        let pairs = self.pairs.len() + self.pairs.len() / 4;
        Room::bytes_for::<f32>(shapes)
            + Room::bytes_for::<GridItem>(shapes)
            + 2 * Room::bytes_for::<u32>(self.grid_cells + 2)
            + Room::bytes_for::<u32>(shapes)
            + Room::bytes_for::<u32>(4 * shapes)
            + 2 * Room::bytes_for::<Pair>(pairs)
    }

    /// Candidate pairs for this step, sorted by `(a, b)`: every pair of
    /// shapes whose needed boxes overlap, whose bodies differ and of which
    /// at least one is dynamic (and that reach a fixed wall's band); with
    /// them, per shape, what the narrowphase reads of it this step, written
    /// into `views` (one slot per shape; `needed` is scratch for the
    /// shapes' needed boxes, one slot each). The step's other buffers are
    /// taken from `room` (see [`BroadPhase::room_hint`]). `static_version`
    /// changes whenever shapes were added or removed or a body was moved by
    /// hand; all pairs are then found afresh. The searches for pairs are
    /// shared out as `sharing` says.
    #[allow(clippy::too_many_arguments)]
    pub fn find_pairs<'a>(
        &'a mut self,
        bodies: &[Body],
        colliders: &[Collider],
        margin: f32,
        dt: f32,
        static_version: u64,
        sharing: Sharing,
        views: &'a mut [MaybeUninit<StepCollider>],
        needed: &'a mut [MaybeUninit<Aabb>],
        mut room: Room<'a>,
    ) -> (&'a [Pair], &'a [StepCollider]) {
        let fresh = self.static_version != Some(static_version);
        self.static_version = Some(static_version);
        let half_margin = 0.5 * margin;
        let index = &mut self.index;
        let moved = index.update_boxes(
            bodies,
            colliders,
            half_margin,
            dt,
            fresh,
            views,
            needed,
            sharing.helper,
        );
        // SAFETY: `update_boxes` wrote a view and a needed box for every
        // shape.
        let (views, needed) = unsafe { (assume_written(views), assume_written(needed)) };
        let spare = &mut self.spare;
        // Work the calling thread has held back from the other thread (see
        // `HelperBoard::with_held_errand`) goes to it once the broadphase
        // has no more to share with it for a while: when a grid is built,
        // after the search for pairs, while the pairs found are sorted (see
        // also `Search::find_moved`); else now.
        // A fresh start rebuilds even with no shape left, so that nothing
        // stale stays in the trees.
        let few = (1..=FEW_MOVED).contains(&moved) && !fresh;
        if few || (moved == 0 && !fresh) {
            sharing.release_errand();
        }
        if few {
            // A handful moved: their partners are found by testing every
            // box, with no grid. The kinematic tree, which continuous
            // collision reads, must still follow its shapes.
            if index.kinematic_moved() {
                index.trees.rebuild_kinematic(&index.slots, &index.enlarged);
            }
            let index = &self.index;
            let partners = |m, out: &mut Vec<u32>| index.overlapping(m, out);
            self.search
                .find_moved(index, partners, &mut self.pairs, sharing);
        } else if moved > 0 || fresh {
            let shapes = colliders.len();
            // Which shapes can move changes only with the shapes (`fresh`).
            let moving = index.slots.iter().filter(|s| **s != Slot::Static);
            let full = fresh || moved as f32 >= REBUILD_FRACTION * moving.count() as f32;
            // A full search's pairs are sorted on both threads (see
            // `sort_pairs_shared`), so the other thread makes its errand
            // while this one classifies the shapes instead.
            let sort_helper = sharing.helper.filter(|_| shapes >= SORT_SHARED_MIN);
            if full {
                if sort_helper.is_some() {
                    sharing.release_errand();
                }
                let sizes = room.take_or(shapes, &mut spare.sizes);
                index.classify(bodies, colliders, sizes, fresh);
            } else {
                index.move_grown_to_large();
            }
            let grid_spare = GridSpare {
                cell_start: &mut spare.cell_start,
                items: &mut spare.grid_items,
                front_cursors: &mut spare.front_cursors,
                cells: &mut spare.cells,
            };
            let blocks = &mut self.blocks;
            let grid =
                index.build_trees_and_grid(fresh, blocks, &mut room, grid_spare, sharing.helper);
            let index = &self.index;
            self.grid_cells = grid.cell_start.len();
            let finder = PairFinder { index, grid: &grid };
            if full {
                let found = self.search.find_all(&finder, sharing);
                sharing.release_errand();
                let count = found.iter().map(|c| c.pairs.len()).sum();
                let sort_helper = sort_helper.filter(|_| count >= shapes);
                let counts = if sort_helper.is_some() { 4 } else { 2 };
                let sort = SortSlots {
                    starts: room.take_or(counts * shapes, &mut spare.starts),
                    by_b: room.take_or(count, &mut spare.by_b),
                };
                keep_found(found, shapes, sort, &mut self.pairs, sort_helper);
            } else {
                let partners = |m, out: &mut Vec<u32>| finder.partners(m, out);
                self.search
                    .find_moved(index, partners, &mut self.pairs, sharing);
            }
        }
        let slots = room.take_or(self.pairs.len(), &mut spare.near);
        let near = self
            .index
            .pick_near(&self.pairs, needed, slots, sharing.helper);
        (near, views)
    }

    /// Whether `aabb` reaches the band of `shape` this step (see the module
    /// notes); `true` for a shape without one.
    pub fn reaches_band(&self, shape: u32, aabb: &Aabb) -> bool {
        self.index
            .band_of(shape)
            .map_or(true, |band| band.reaches(aabb))
    }

    /// Shapes of static and kinematic bodies whose boxes overlap `aabb`.
    pub fn query_fixed(&self, aabb: &Aabb, out: &mut Vec<u32>) {
        out.clear();
        self.index.trees.fixed.query(aabb, out);
        self.index.trees.kinematic.query(aabb, out);
    }
}

impl Search {
    /// Finds every pair afresh. The grid is swept cell by cell: each cell
    /// pairs its shapes with each other, with the cell to its right and
    /// with the three cells above (see [`PairFinder::sweep_cell`]), so every
    /// pair of grid shapes is tested once; a grid shape also meets its
    /// block's tree shapes. Large shapes query the trees for fixed shapes
    /// and for the large shapes after them. The pairs come out in cell
    /// order and are then sorted by shape, in linear time
    /// ([`sort_pairs`]).
    ///
    /// A task sweeps the cells whose items begin in one run of
    /// [`PAIR_CHUNK`] items (so each task's share of pairs, and its buffer,
    /// stays about the same from step to step), or queries for a run of
    /// large shapes. Returns the buffers holding the pairs found.
    fn find_all(&mut self, finder: &PairFinder, sharing: Sharing) -> &[ChunkBuffers] {
        self.queriers.clear();
        for (i, slot) in finder.index.slots.iter().enumerate() {
            if *slot == Slot::Large {
                self.queriers.push(i as u32);
            }
        }
        let grid = finder.grid;
        let sweeps = grid.items.len().div_ceil(PAIR_CHUNK);
        let queriers = &self.queriers;
        let tasks = sweeps + queriers.len().div_ceil(PAIR_CHUNK);
        let chunks = search(&mut self.chunks, tasks, sharing, |task, buffers| {
            if task < sweeps {
                for cell in grid.cells_beginning_in(task * PAIR_CHUNK, PAIR_CHUNK) {
                    finder.sweep_cell(cell, &mut buffers.pairs);
                }
            } else {
                for &a in chunk_of(queriers, task - sweeps) {
                    finder.large_pairs(a, buffers);
                }
            }
        });
        &self.chunks[..chunks]
    }

    /// Finds the moved shapes' new partners (`partners` appends those of
    /// one shape), then in one pass over the kept pairs drops those of
    /// moved shapes that no longer overlap and merges in the new ones (both
    /// lists are sorted).
    fn find_moved(
        &mut self,
        index: &Index,
        partners: impl Fn(u32, &mut Vec<u32>) + Sync,
        pairs: &mut Vec<Pair>,
        sharing: Sharing,
    ) {
        let moved = &index.moved;
        self.queriers.clear();
        for (i, slot) in index.slots.iter().enumerate() {
            if moved[i] && *slot != Slot::Static {
                self.queriers.push(i as u32);
            }
        }
        let queriers = &self.queriers;
        let tasks = queriers.len().div_ceil(PAIR_CHUNK);
        let chunks = search(&mut self.chunks, tasks, sharing, |task, buffers| {
            for &m in chunk_of(queriers, task) {
                let scratch = &mut buffers.scratch;
                scratch.clear();
                partners(m, scratch);
                for &s in scratch.iter() {
                    // A pair of two moved shapes is reported by the lower one.
                    let reported_by_s = moved[s as usize] && s < m;
                    if !reported_by_s {
                        if let Some(pair) = index.pair_of(m, s) {
                            buffers.pairs.push(pair);
                        }
                    }
                }
            }
        });
        sharing.release_errand();
        // The first task's buffer gathers the others' pairs (on the calling
        // thread there is only one).
        let found = match self.chunks[..chunks].split_first_mut() {
            Some((first, rest)) => {
                for chunk in rest {
                    first.pairs.extend_from_slice(&chunk.pairs);
                }
                first.pairs.sort_unstable();
                first.pairs.dedup();
                &first.pairs[..]
            }
            None => &[],
        };
        let still_overlaps = |p: Pair| {
            let (a, b) = (p.a as usize, p.b as usize);
            !(index.moved[a] || index.moved[b]) || index.enlarged[a].overlaps(&index.enlarged[b])
        };
        merge_in_place(pairs, found, still_overlaps);
    }
}

impl Index {
    /// Writes the pairs of `pairs` that may touch this step (see
    /// [`Index::is_near`]) into the first of `slots` (one per pair), and
    /// returns them. With a `helper` board and enough pairs, each half of
    /// the pairs is picked on its own thread into its half of the slots, and
    /// the second half's picks are then moved down to follow the first's:
    /// the same list either way.
    fn pick_near<'a>(
        &self,
        pairs: &[Pair],
        needed: &[Aabb],
        slots: &'a mut [MaybeUninit<Pair>],
        helper: Option<&HelperBoard>,
    ) -> &'a [Pair] {
        let slots = &mut slots[..pairs.len()];
        let len = match helper {
            Some(board) if pairs.len() >= NEAR_SHARED_MIN => {
                let mid = pairs.len() / 2;
                let (front, back) = slots.split_at_mut(mid);
                let halves = [(&pairs[..mid], front), (&pairs[mid..], back)];
                // As for the boxes' update: a half that panicked wrote
                // only some of its slots.
                let failed = "a half of the near pairs' pick failed on another thread";
                let pick = |(pairs, slots)| self.pick_near_into(pairs, needed, slots);
                let [front_len, back_len] = share_each(Some(board), halves, pick, failed);
                slots.copy_within(mid..mid + back_len, front_len);
                front_len + back_len
            }
            _ => self.pick_near_into(pairs, needed, slots),
        };
        // SAFETY: the first `len` slots were written.
        unsafe { assume_written(&mut slots[..len]) }
    }

    /// Writes the pairs of `pairs` that may touch this step into the first
    /// of `slots` (at least one per pair), and returns how many.
    ///
    /// A loop of its own, rather than part of the pass that updates the
    /// pairs: the two together keep more values live than there are
    /// registers. Every pair is written and only a near one advances the
    /// count: in a pile about a third of the kept pairs are not near, in no
    /// pattern, so a branch on it would often be mispredicted (this halves
    /// the loop's time in a settled pile of capsules).
    fn pick_near_into(
        &self,
        pairs: &[Pair],
        needed: &[Aabb],
        slots: &mut [MaybeUninit<Pair>],
    ) -> usize {
        let slots = &mut slots[..pairs.len()];
        let mut len = 0;
        for &pair in pairs {
            // `len` trails the pairs read, so it is within `slots`.
            slots[len].write(pair);
            len += usize::from(self.is_near(pair, needed));
        }
        len
    }

    /// Whether a kept pair may touch this step: its needed boxes overlap and
    /// `a`'s reaches `b`'s band if `b` has one. Only fixed shapes have bands,
    /// and they are always `b` (`a` is dynamic).
    /// `needed` holds each shape's needed box.
    #[inline]
    fn is_near(&self, pair: Pair, needed: &[Aabb]) -> bool {
        let (a, b) = (pair.a as usize, pair.b as usize);
        // `&`, not `&&`: both tests are cheap and a branch between them
        // would be as unpredictable as the answer.
        needed[a].overlaps(&needed[b])
            & self
                .band_of(pair.b)
                .map_or(true, |band| band.reaches(&needed[a]))
    }

    /// The pair of `m` and `s` in its reported order, if they may collide:
    /// different bodies, at least one dynamic.
    #[inline]
    fn pair_of(&self, m: u32, s: u32) -> Option<Pair> {
        if self.owners[m as usize] == self.owners[s as usize] {
            return None;
        }
        let dynamic = |shape: u32| matches!(self.slots[shape as usize], Slot::Grid | Slot::Large);
        match (dynamic(m), dynamic(s)) {
            (true, true) => Some(Pair {
                a: m.min(s),
                b: m.max(s),
            }),
            (true, false) => Some(Pair { a: m, b: s }),
            (false, true) => Some(Pair { a: s, b: m }),
            (false, false) => None,
        }
    }

    /// Appends every other shape whose enlarged box overlaps `a`'s,
    /// testing every box: for a handful of moved shapes this costs less
    /// than building the grid. Few boxes overlap, so the branch on it is
    /// well predicted.
    fn overlapping(&self, a: u32, out: &mut Vec<u32>) {
        let query = &self.enlarged[a as usize];
        for (s, aabb) in self.enlarged.iter().enumerate() {
            if aabb.overlaps(query) && s != a as usize {
                out.push(s as u32);
            }
        }
    }

    /// The band of `shape`, if it is a fixed wall.
    fn band_of(&self, shape: u32) -> Option<&Band> {
        let bands = match self.slots[shape as usize] {
            Slot::Static => &self.static_bands,
            Slot::Kinematic => &self.kinematic_bands,
            Slot::Grid | Slot::Large => return None,
        };
        let at = bands.binary_search_by_key(&shape, |&(s, _)| s).ok()?;
        Some(&bands[at].1)
    }

    /// Updates each shape's needed box, and grows the enlarged box of each
    /// shape whose needed box left it (of every shape when `fresh`);
    /// returns how many did. Writes each shape's view into `views` and its
    /// needed box into `needed`. With a `helper` board and enough shapes,
    /// the second half of the shapes is updated on another thread (whose
    /// narrowphase, which takes pairs from the back, then reads mostly the
    /// views it wrote).
    #[allow(clippy::too_many_arguments)]
    fn update_boxes(
        &mut self,
        bodies: &[Body],
        colliders: &[Collider],
        half_margin: f32,
        dt: f32,
        fresh: bool,
        views: &mut [MaybeUninit<StepCollider>],
        needed: &mut [MaybeUninit<Aabb>],
        helper: Option<&HelperBoard>,
    ) -> usize {
        let n = colliders.len();
        assert!(views.len() == n && needed.len() == n, "one slot per shape");
        let empty = Aabb::new(Vec2::ZERO, Vec2::ZERO);
        if fresh {
            self.enlarged.clear();
            self.enlarged.resize(n, empty);
            self.moved.clear();
            self.moved.resize(n, true);
            self.static_bands.clear();
        }
        self.sizes.resize(n, 0.0);
        self.kinematic_bands.clear();
        let step = BoxStep {
            bodies,
            half_margin,
            dt,
            fresh,
        };
        let board = helper.filter(|_| n >= BOXES_SHARED_MIN);
        let mid = if board.is_some() { n / 2 } else { n };
        let (front_views, back_views) = views.split_at_mut(mid);
        let (front_needed, back_needed) = needed.split_at_mut(mid);
        let (front_enlarged, back_enlarged) = self.enlarged.split_at_mut(mid);
        let (front_moved, back_moved) = self.moved.split_at_mut(mid);
        let (front_sizes, back_sizes) = self.sizes.split_at_mut(mid);
        let (front_colliders, back_colliders) = colliders.split_at(mid);
        let back_bands = &mut self.back_bands;
        back_bands.statics.clear();
        back_bands.kinematics.clear();
        let front = BoxPart {
            first: 0,
            colliders: front_colliders,
            views: front_views,
            needed: front_needed,
            enlarged: front_enlarged,
            moved: front_moved,
            sizes: front_sizes,
            static_bands: &mut self.static_bands,
            kinematic_bands: &mut self.kinematic_bands,
        };
        let back = BoxPart {
            first: mid,
            colliders: back_colliders,
            views: back_views,
            needed: back_needed,
            enlarged: back_enlarged,
            moved: back_moved,
            sizes: back_sizes,
            static_bands: &mut back_bands.statics,
            kinematic_bands: &mut back_bands.kinematics,
        };
        // A part that panicked on the helper left its slots unwritten.
        let failed = "a part of the boxes' update failed on another thread";
        let moved = share_each(board, [front, back], |mut part| part.update(&step), failed);
        let count = moved.iter().sum();
        // The back part's bands follow the front's, keeping them sorted by
        // shape.
        self.static_bands
            .extend_from_slice(&self.back_bands.statics);
        self.kinematic_bands
            .extend_from_slice(&self.back_bands.kinematics);
        count
    }

    /// Sorts the shapes into grid, large, kinematic and static ones. Which
    /// shapes are dynamic, and their bodies, change only with the shapes
    /// (`fresh`); otherwise only grid and large shapes are sorted anew.
    fn classify(
        &mut self,
        bodies: &[Body],
        colliders: &[Collider],
        sizes: &mut [MaybeUninit<f32>],
        fresh: bool,
    ) {
        if fresh {
            self.owners.clear();
            self.owners.extend(colliders.iter().map(|c| c.body));
            self.slots.clear();
            self.slots.extend(
                colliders
                    .iter()
                    .map(|c| match bodies[c.body as usize].kind {
                        BodyKind::Static => Slot::Static,
                        BodyKind::Kinematic => Slot::Kinematic,
                        BodyKind::Dynamic => Slot::Grid,
                    }),
            );
        }
        let count = regrid_noting_sizes(&mut self.slots, &self.sizes, |&size| size, sizes);
        if count == 0 {
            return;
        }
        // SAFETY: the first `count` slots were written just above.
        let written = unsafe { assume_written(&mut sizes[..count]) };
        let (_, median, _) = written.select_nth_unstable_by(count / 2, f32::total_cmp);
        let mut limit = LARGE_FACTOR * median.max(f32::MIN_POSITIVE);
        let most_large = ((MAX_LARGE_FRACTION * count as f32) as usize).max(MIN_LARGE);
        if self.mark_large(limit) > most_large {
            // Too many: the limit rises to the box size that leaves
            // `most_large` above it, among the same grid shapes.
            let count = regrid_noting_sizes(&mut self.slots, &self.enlarged, box_size, sizes);
            // SAFETY: as above.
            let written = unsafe { assume_written(&mut sizes[..count]) };
            let at = count - 1 - most_large;
            limit = *written.select_nth_unstable_by(at, f32::total_cmp).1;
            self.mark_large(limit);
        }
        self.large_limit = limit;
    }

    /// Makes large every grid shape whose enlarged box exceeds `limit`;
    /// returns how many it made large.
    fn mark_large(&mut self, limit: f32) -> usize {
        let mut large = 0;
        for (slot, enlarged) in self.slots.iter_mut().zip(&self.enlarged) {
            if *slot == Slot::Grid && box_size(enlarged) > limit {
                *slot = Slot::Large;
                large += 1;
            }
        }
        large
    }

    /// Between classifications: a moved grid shape whose enlarged box now
    /// exceeds the last limit goes to the large-shape tree (a large shape
    /// that shrank waits for the next classification). Cheaper than
    /// classifying, which finds a median; the grid is exact either way.
    fn move_grown_to_large(&mut self) {
        let limit = self.large_limit;
        let shapes = self.slots.iter_mut().zip(&self.enlarged).zip(&self.moved);
        for ((slot, enlarged), &moved) in shapes {
            if moved && *slot == Slot::Grid && box_size(enlarged) > limit {
                *slot = Slot::Large;
            }
        }
    }

    /// Whether a kinematic shape's needed box left its enlarged box this
    /// step.
    fn kinematic_moved(&self) -> bool {
        let slots = self.slots.iter().zip(&self.moved);
        slots
            .filter(|(s, _)| **s == Slot::Kinematic)
            .any(|(_, moved)| *moved)
    }

    /// Rebuilds the kinematic and large-shape trees (and the static one when
    /// the shapes changed), lists `blocks` anew for the grid, and sorts the
    /// grid shapes into cells by a counting sort, in slots of `room` (or of
    /// `spare` when it falls short). With a `helper` board, the trees and
    /// blocks are built on one thread while the two halves of the grid
    /// shapes are counted (see [`CellSort`]), and the halves are then
    /// placed on a thread each: the trees are taken out of the index
    /// meanwhile, so that the sort may read the rest of it.
    fn build_trees_and_grid<'a>(
        &mut self,
        fresh: bool,
        blocks: &'a mut BlockLists,
        room: &mut Room<'a>,
        spare: GridSpare<'a>,
        helper: Option<&HelperBoard>,
    ) -> Grid<'a> {
        let (layout, count) = self.grid_layout(helper).unwrap_or((GridLayout::EMPTY, 0));
        let cells = (layout.columns * layout.rows) as usize;
        let board = helper.filter(|_| count >= GRID_SHARED_MIN);
        // Counts go two places up (see `CellSort::sort`).
        let sort_slots = (count > 0).then(|| CellSlots {
            starts: room.take_or(cells + 2, spare.cell_start),
            items: room.take_or(count, spare.items),
            cells: room.take_or(self.slots.len(), spare.cells),
            front: board.map(|_| room.take_or(cells, spare.front_cursors)),
        });
        let mut trees = std::mem::take(&mut self.trees);
        let sorter = CellSort {
            index: self,
            layout: &layout,
            inv_cell: 1.0 / layout.cell,
        };
        let mut block_columns = None;
        let mut build = || {
            trees.rebuild(&sorter.index.slots, &sorter.index.enlarged, fresh);
            block_columns = Some(blocks.build(&layout, &trees.all()));
        };
        let sorted = match (sort_slots, board) {
            (Some(slots), Some(board)) => Some(sorter.sort_shared(slots, board, build)),
            (slots, _) => {
                build();
                slots.map(|slots| sorter.sort(slots))
            }
        };
        self.trees = trees;
        let block_columns = block_columns.expect("the trees' part ran");
        let (cell_start, items) = sorted.unwrap_or((&[], &[]));
        Grid {
            origin: layout.origin,
            cell: layout.cell,
            inv_cell: 1.0 / layout.cell,
            columns: layout.columns,
            rows: layout.rows,
            cell_start,
            items,
            block_columns,
            blocks,
        }
    }

    /// Where the grid over the grid shapes' enlarged boxes lies and how
    /// large its cells are, and how many grid shapes there are (`None`
    /// without any).
    /// With a `helper` board and enough shapes, each half of the shapes is
    /// measured on its own thread: minima, maxima and counts join exactly,
    /// so the layout is the same.
    fn grid_layout(&self, helper: Option<&HelperBoard>) -> Option<(GridLayout, usize)> {
        let (slots, enlarged) = (&self.slots[..], &self.enlarged[..]);
        let span = match helper {
            Some(board) if slots.len() >= GRID_SHARED_MIN => {
                let mid = slots.len() / 2;
                let halves = [0..mid, mid..slots.len()];
                let measure =
                    |range: Range<usize>| GridSpan::of(&slots[range.clone()], &enlarged[range]);
                let failed = "a half of the grid's layout failed on another thread";
                let [front, back] = share_each(Some(board), halves, measure, failed);
                front.join(back)
            }
            _ => GridSpan::of(slots, enlarged),
        };
        let GridSpan {
            lo,
            hi,
            largest,
            count,
        } = span;
        if count == 0 {
            return None;
        }
        // A cell no smaller than the largest box makes any box lie within
        // its cell grown by half a cell; growing it so that cells ≤ 4·count
        // bounds memory for sparse worlds.
        let extent = (hi - lo).max(Vec2::splat(f32::MIN_POSITIVE));
        let sparse_cell = (extent.x * extent.y / (4.0 * count as f32)).sqrt();
        let across = extent.max_element();
        let cell = largest
            .max(sparse_cell)
            .max(across / MAX_CELLS_ACROSS)
            .max(1e-3);
        // The sweep needs two boxes whose centres are at most `largest`
        // apart to fall in neighbouring cells. A cell index is computed with
        // three roundings (relative error ≤ 3ε), so two indices up to `k`
        // can each be off by 3εk: a cell wider than the largest box by a
        // fraction 8ε·k covers that (under 7 % with at most 2¹⁶ cells).
        let cell = cell * (1.0 + 8.0 * f32::EPSILON * (across / cell + 1.0));
        let layout = GridLayout {
            origin: lo,
            cell,
            columns: ((extent.x / cell) as i32 + 1).max(1),
            rows: ((extent.y / cell) as i32 + 1).max(1),
        };
        Some((layout, count))
    }
}

/// The slots the grid's counting sort writes: `starts` (one per cell and
/// two more), `items` (one per grid shape), `cells` (one per shape), and,
/// when two threads share the sort, `front` (one per cell).
struct CellSlots<'a> {
    starts: &'a mut [MaybeUninit<u32>],
    items: &'a mut [MaybeUninit<GridItem>],
    cells: &'a mut [MaybeUninit<u32>],
    front: Option<&'a mut [MaybeUninit<u32>]>,
}

/// Sorts the grid shapes into the cells of `layout`, by a stable counting
/// sort: within a cell they keep their order by shape.
///
/// Shared by two threads, the shapes are cut into a front and a back half,
/// and each half is counted into counts of its own; a cell's run then
/// gives the front half's shapes the first places and the back half's the
/// rest, so each half is placed from cursors of its own and the items come
/// out exactly as one thread places them.
struct CellSort<'s> {
    index: &'s Index,
    layout: &'s GridLayout,
    inv_cell: f32,
}

impl CellSort<'_> {
    /// The cell a grid shape with enlarged box `b` goes to.
    #[inline]
    fn cell_of(&self, b: &Aabb) -> usize {
        let l = self.layout;
        let (x, y) = cell_coords(b.center(), l.origin, self.inv_cell, l.columns, l.rows);
        (y * l.columns + x) as usize
    }

    /// Adds each grid shape of `shapes` to the count of its cell, and notes
    /// its cell in `cells` (one slot per shape of `shapes`) for placing.
    fn count(&self, shapes: Range<usize>, cells: &mut [MaybeUninit<u32>], counts: &mut [u32]) {
        let index = self.index;
        let run = index.slots[shapes.clone()]
            .iter()
            .zip(&index.enlarged[shapes]);
        for ((slot, b), noted) in run.zip(cells) {
            if *slot == Slot::Grid {
                let cell = self.cell_of(b);
                noted.write(cell as u32);
                counts[cell] += 1;
            }
        }
    }

    /// Writes each grid shape of `shapes` into `items` at the cursor of its
    /// cell, as [`CellSort::count`] noted it in `cells`, advancing the
    /// cursor.
    ///
    /// # Safety
    /// `cells` must be as counting `shapes` left them, `items` valid for
    /// writes at every place the cursors reach, and no other thread may
    /// write those places meanwhile.
    unsafe fn place(
        &self,
        shapes: Range<usize>,
        cells: &[MaybeUninit<u32>],
        cursors: &mut [u32],
        items: ItemSlots,
    ) {
        let index = self.index;
        for (s, cell) in shapes.zip(cells) {
            if index.slots[s] == Slot::Grid {
                let b = index.enlarged[s];
                // SAFETY: counting noted the cell of every grid shape.
                let at = &mut cursors[unsafe { cell.assume_init() } as usize];
                let item = GridItem {
                    shape: s as u32,
                    owner: index.owners[s],
                    aabb: b,
                };
                // SAFETY: the caller's guarantee.
                unsafe { items.0.add(*at as usize).write(item) };
                *at += 1;
            }
        }
    }

    /// The cell starts and the items, sorted on this thread.
    fn sort<'a>(&self, slots: CellSlots<'a>) -> (&'a [u32], &'a [GridItem]) {
        let starts = zeroed(slots.starts);
        let cells = starts.len() - 2;
        let shapes = 0..self.index.slots.len();
        // Counts go two places up, so that after the prefix sum entry
        // `c + 1` is where cell `c` begins, the cursor that placing the
        // items advances to where cell `c + 1` begins: the first `cells + 1`
        // entries are then the cells' starts, with no separate cursor.
        self.count(shapes.clone(), slots.cells, &mut starts[2..]);
        for c in 0..cells {
            starts[c + 2] += starts[c + 1];
        }
        let items = ItemSlots(slots.items.as_mut_ptr().cast());
        // SAFETY: counted just above; the counts give each grid shape a slot
        // of its own among as many slots as there are grid shapes.
        unsafe { self.place(shapes, slots.cells, &mut starts[1..], items) };
        // SAFETY: so every slot was written.
        let items = unsafe { assume_written(slots.items) };
        (&starts[..cells + 1], items)
    }

    /// [`CellSort::sort`] shared on `board`: the halves are counted while
    /// `build` runs, then placed on a thread each.
    fn sort_shared<'a>(
        &self,
        slots: CellSlots<'a>,
        board: &HelperBoard,
        build: impl FnOnce() + Send,
    ) -> (&'a [u32], &'a [GridItem]) {
        let starts = zeroed(slots.starts);
        let front = zeroed(slots.front.expect("cursors for the front half"));
        let cells = front.len();
        let shapes = self.index.slots.len();
        let mid = shapes / 2;
        let (front_half, back_half) = (0..mid, mid..shapes);
        let (front_cells, back_cells) = slots.cells.split_at_mut(mid);
        // The back half counts one place up: once it has been placed, its
        // cursor for cell `c` stands where cell `c + 1` begins, so the
        // first `cells + 1` entries are the cells' starts.
        let back = &mut starts[1..cells + 1];
        // A part that panicked on the helper left its work undone.
        let failed = "a part of the grid's build failed on another thread";
        let parts = [
            GridPart::Count(front_half.clone(), &mut *front_cells, &mut *front),
            GridPart::Count(back_half.clone(), &mut *back_cells, &mut *back),
            GridPart::Trees(build),
        ];
        share_each(Some(board), parts, |part| part.run(self), failed);
        // Each cell's run: the front half's shapes, then the back half's.
        begin_runs_of_halves(front, back);
        let items = ItemSlots(slots.items.as_mut_ptr().cast());
        let parts = [
            GridPart::<fn()>::Place(front_half, front_cells, front, items),
            GridPart::Place(back_half, back_cells, back, items),
        ];
        share_each(Some(board), parts, |part| part.run(self), failed);
        // SAFETY: the two halves' runs cover every slot once.
        let items = unsafe { assume_written(slots.items) };
        (&starts[..cells + 1], items)
    }
}

/// Writes `slots` with zeros and returns them.
fn zeroed(slots: &mut [MaybeUninit<u32>]) -> &mut [u32] {
    for slot in slots.iter_mut() {
        slot.write(0);
    }
    // SAFETY: every slot was written just above.
    unsafe { assume_written(slots) }
}

/// Where the grid's items go, written by the two halves' placing at once.
#[derive(Clone, Copy)]
struct ItemSlots(*mut GridItem);

// SAFETY: the halves write disjoint slots (see `CellSort::place`).
unsafe impl Send for ItemSlots {}

/// The parts of building the grid (see [`Index::build_trees_and_grid`]),
/// each run on whichever thread claims it.
enum GridPart<'c, T> {
    /// Rebuild the trees and list the grid's blocks.
    Trees(T),
    /// Count a half of the shapes into its counts, noting their cells.
    Count(Range<usize>, &'c mut [MaybeUninit<u32>], &'c mut [u32]),
    /// Place a half of the shapes in the cells noted, from its cursors.
    Place(
        Range<usize>,
        &'c [MaybeUninit<u32>],
        &'c mut [u32],
        ItemSlots,
    ),
}

impl<T: FnOnce()> GridPart<'_, T> {
    fn run(self, sorter: &CellSort) {
        match self {
            GridPart::Trees(build) => build(),
            GridPart::Count(shapes, cells, counts) => sorter.count(shapes, cells, counts),
            // SAFETY: placing follows counting, and the cursors of the two
            // halves lead to disjoint runs of the item slots (see
            // `CellSort::sort_shared`).
            GridPart::Place(shapes, cells, cursors, items) => unsafe {
                sorter.place(shapes, cells, cursors, items)
            },
        }
    }
}

/// The cell of a grid from `origin` with cells of side `1 / inv_cell`,
/// `columns` × `rows` of them, that holds `p`, clamped to the grid (see
/// [`Grid::cell_coords`]).
#[inline]
fn cell_coords(p: Vec2, origin: Vec2, inv_cell: f32, columns: i32, rows: i32) -> (i32, i32) {
    let c = (p - origin) * inv_cell;
    (
        (c.x as i32).clamp(0, columns - 1),
        (c.y as i32).clamp(0, rows - 1),
    )
}

/// Where the box centres of a run of grid shapes lie, their largest box
/// and how many there are.
#[derive(Debug, Clone, Copy)]
struct GridSpan {
    lo: Vec2,
    hi: Vec2,
    largest: f32,
    count: usize,
}

impl GridSpan {
    /// The span of no shapes.
    const EMPTY: GridSpan = GridSpan {
        lo: Vec2::splat(f32::INFINITY),
        hi: Vec2::splat(f32::NEG_INFINITY),
        largest: 0.0,
        count: 0,
    };

    /// The span of the grid shapes among shapes of `slots` with boxes
    /// `enlarged`.
    fn of(slots: &[Slot], enlarged: &[Aabb]) -> GridSpan {
        let mut span = GridSpan::EMPTY;
        for (slot, b) in slots.iter().zip(enlarged) {
            if *slot == Slot::Grid {
                span.lo = span.lo.min(b.center());
                span.hi = span.hi.max(b.center());
                span.largest = span.largest.max(box_size(b));
                span.count += 1;
            }
        }
        span
    }

    /// The span of both runs.
    fn join(self, other: GridSpan) -> GridSpan {
        GridSpan {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
            largest: self.largest.max(other.largest),
            count: self.count + other.count,
        }
    }
}

/// The index's trees: of static shapes (rebuilt only when the shapes
/// change), of kinematic ones, and of large dynamic ones. Taken out of the
/// index while they are rebuilt beside the grid (see
/// [`Index::build_trees_and_grid`]).
#[derive(Debug, Default)]
struct Trees {
    fixed: AabbTree,
    kinematic: AabbTree,
    large: AabbTree,
}

impl Trees {
    /// Rebuilds the kinematic and large-shape trees from the shapes'
    /// `slots` and `enlarged` boxes, and the static one when the shapes
    /// changed (`fresh`).
    fn rebuild(&mut self, slots: &[Slot], enlarged: &[Aabb], fresh: bool) {
        if fresh {
            self.fixed.rebuild(boxes_in(slots, enlarged, Slot::Static));
        }
        self.large.rebuild(boxes_in(slots, enlarged, Slot::Large));
        self.rebuild_kinematic(slots, enlarged);
    }

    /// Rebuilds the kinematic tree from the kinematic shapes' `enlarged`
    /// boxes.
    fn rebuild_kinematic(&mut self, slots: &[Slot], enlarged: &[Aabb]) {
        self.kinematic
            .rebuild(boxes_in(slots, enlarged, Slot::Kinematic));
    }

    /// The static, kinematic and large-shape trees.
    fn all(&self) -> [&AabbTree; 3] {
        [&self.fixed, &self.kinematic, &self.large]
    }
}

/// Where a grid lies, with its cell size and cells along each axis.
#[derive(Debug, Clone, Copy)]
struct GridLayout {
    origin: Vec2,
    cell: f32,
    columns: i32,
    rows: i32,
}

impl GridLayout {
    /// The grid of no cells, for no grid shapes.
    const EMPTY: GridLayout = GridLayout {
        origin: Vec2::ZERO,
        cell: 1.0,
        columns: 0,
        rows: 0,
    };
}

/// The shapes indexed as `slot`, each with its enlarged box (`slots` and
/// `enlarged` hold one entry per shape).
fn boxes_in<'a>(
    slots: &'a [Slot],
    enlarged: &'a [Aabb],
    slot: Slot,
) -> impl Iterator<Item = (u32, Aabb)> + 'a {
    let shapes = slots.iter().zip(enlarged).enumerate();
    shapes
        .filter(move |(_, (s, _))| **s == slot)
        .map(|(i, (_, b))| (i as u32, *b))
}

/// The slack an enlarged box gets beyond the needed box: a tenth of the
/// shape's size, at most [`SLACK_MAX`], for a slow shape; none for a static
/// shape, which never moves, or for a shape moving farther than that slack
/// in a step, which leaves any box soon.
fn slack(body: &Body, aabb: &Aabb, motion: f32) -> f32 {
    let slack = (SLACK_FRACTION * box_size(aabb)).min(SLACK_MAX);
    if body.kind == BodyKind::Static || motion > slack {
        0.0
    } else {
        slack
    }
}

/// Runs `find` on each task `0..tasks`, each with its own buffers, shared
/// out as `sharing` says; returns how many buffers were used, whose pairs
/// are in `chunks` in task order. On the calling thread the tasks run in
/// order into one buffer, so no task keeps a buffer of its own (each grew
/// to its own largest share of pairs).
fn search(
    chunks: &mut Vec<ChunkBuffers>,
    tasks: usize,
    sharing: Sharing,
    find: impl Fn(usize, &mut ChunkBuffers) + Sync,
) -> usize {
    let Sharing { threading, helper } = sharing;
    // A task of its own starts with an empty list of pairs.
    let run = |task: usize, buffers: &mut ChunkBuffers| {
        buffers.pairs.clear();
        find(task, buffers);
    };
    if threading == Threading::Calling {
        chunks.resize_with(chunks.len().max(1), Default::default);
        let buffers = &mut chunks[0];
        buffers.pairs.clear();
        for task in 0..tasks {
            find(task, buffers);
        }
        return 1;
    }
    chunks.resize_with(tasks, Default::default);
    if let Some(board) = helper {
        share_slots(Some(board), &mut chunks[..tasks], run);
        return tasks;
    }
    chunks[..tasks]
        .par_iter_mut()
        .enumerate()
        .with_min_len(threading.min_len())
        .for_each(|(task, buffers)| run(task, buffers));
    tasks
}

/// Chunk `k` of [`PAIR_CHUNK`] shapes of `shapes`.
fn chunk_of(shapes: &[u32], k: usize) -> &[u32] {
    &shapes[k * PAIR_CHUNK..shapes.len().min((k + 1) * PAIR_CHUNK)]
}

/// Makes the pairs found by a full search, in `chunks`, the kept pairs
/// `kept`, sorted (see [`sort_pairs`]; with a `helper` board, the sort is
/// shared, see [`sort_pairs_shared`]).
fn keep_found(
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
fn begin_runs_of_halves(front: &mut [u32], back: &mut [u32]) -> usize {
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
struct SortSlots<'a> {
    /// Two counts per shape.
    starts: &'a mut [MaybeUninit<u32>],
    /// One slot per pair, for the pairs sorted by `b`.
    by_b: &'a mut [MaybeUninit<Pair>],
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
fn merge_in_place(pairs: &mut Vec<Pair>, found: &[Pair], retain: impl Fn(Pair) -> bool) {
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

/// Read-only view used by the parallel pair search.
struct PairFinder<'a> {
    index: &'a Index,
    grid: &'a Grid<'a>,
}

impl PairFinder<'_> {
    /// Appends every other shape whose enlarged box overlaps `a`'s.
    fn partners(&self, a: u32, out: &mut Vec<u32>) {
        let index = self.index;
        let query = &index.enlarged[a as usize];
        self.grid.collect_overlaps(query, |b| b != a, out);
        if index.slots[a as usize] == Slot::Grid {
            let near = self.grid.block_items(query.center());
            out.extend(
                near.iter()
                    .filter(|(b, aabb)| *b != a && aabb.overlaps(query))
                    .map(|&(b, _)| b),
            );
        } else {
            for tree in index.trees.all() {
                tree.for_each_overlap(query, |b, _| {
                    if b != a {
                        out.push(b);
                    }
                });
            }
        }
    }

    /// Appends the pairs of grid shapes with one shape in `cell` that the
    /// sweep gives to this cell, and those of the cell's shapes with the
    /// tree shapes of their blocks.
    ///
    /// Two grid boxes that overlap have centres at most a box apart on each
    /// axis, and no box is wider than a cell, so their cells are neighbours
    /// (or the same). A pair of neighbouring cells is swept from the one
    /// that comes first in row order: a cell takes its own pairs, those with
    /// the cell to its right, and those with the three cells above it; the
    /// right cell and the three above are each one run of items.
    fn sweep_cell(&self, cell: usize, out: &mut Vec<Pair>) {
        let grid = self.grid;
        let (x, y) = (cell as i32 % grid.columns, cell as i32 / grid.columns);
        let own = grid.cell_start[cell] as usize..grid.cell_start[cell + 1] as usize;
        if own.is_empty() {
            return;
        }
        let right = grid.row_run(y, x, (x + 1).min(grid.columns - 1));
        let right = &right[own.len()..];
        let above: &[GridItem] = if y + 1 < grid.rows {
            grid.row_run(y + 1, (x - 1).max(0), (x + 1).min(grid.columns - 1))
        } else {
            &[]
        };
        let items = &grid.items[own];
        let near = grid.block_items_of_cell(x, y);
        for (i, item) in items.iter().enumerate() {
            push_overlaps(item, &items[i + 1..], out);
            push_overlaps(item, right, out);
            push_overlaps(item, above, out);
            for (b, aabb) in near {
                if aabb.overlaps(&item.aabb) {
                    out.extend(self.index.pair_of(item.shape, *b));
                }
            }
        }
    }

    /// Appends the pairs of large shape `a` with fixed shapes and with the
    /// large shapes after it. Its pairs with grid shapes are found by the
    /// grid shapes (their blocks list it).
    fn large_pairs(&self, a: u32, buffers: &mut ChunkBuffers) {
        let index = self.index;
        let query = &index.enlarged[a as usize];
        let scratch = &mut buffers.scratch;
        scratch.clear();
        for tree in [&index.trees.fixed, &index.trees.kinematic] {
            tree.for_each_overlap(query, |b, _| scratch.push(b));
        }
        index.trees.large.for_each_overlap(query, |b, _| {
            if b > a {
                scratch.push(b);
            }
        });
        let pairs = scratch.iter().filter_map(|&b| self.index.pair_of(a, b));
        buffers.pairs.extend(pairs);
    }
}

/// Appends the pair of `item` with each shape of `run` of another body
/// whose box overlaps its own, lower index first, with no branch per shape
/// (see [`push_passing`]).
#[inline]
fn push_overlaps(item: &GridItem, run: &[GridItem], out: &mut Vec<Pair>) {
    push_passing(out, run, |other| {
        let pair = Pair {
            a: item.shape.min(other.shape),
            b: item.shape.max(other.shape),
        };
        let passes = (item.owner != other.owner) & item.aabb.overlaps(&other.aabb);
        (pair, passes)
    });
}

/// Appends to `out` the value `test` gives each item of `run` that it
/// passes. No branch per item: each value is written past the end of
/// `out`, and the end advances only if the item passes. Which items pass is
/// close to random, so branching on it would mispredict often.
#[inline(always)]
fn push_passing<I, T: Copy>(out: &mut Vec<T>, run: &[I], test: impl Fn(&I) -> (T, bool)) {
    out.reserve(run.len());
    let start = out.len();
    let slots = &mut out.spare_capacity_mut()[..run.len()];
    let mut end = 0;
    for item in run {
        let (value, passes) = test(item);
        // `end` trails the items read, so it is within `slots`.
        slots[end].write(value);
        end += usize::from(passes);
    }
    // SAFETY: the first `end` spare slots were written just above.
    unsafe { out.set_len(start + end) };
}

#[cfg(test)]
mod tests {
    use std::mem::MaybeUninit;

    use carom_shapes::{Circle, Segment, Stadium};
    use glam::Vec2;
    use proptest::prelude::*;

    use carom_narrowphase::collide;
    use carom_shapes::{Shape, Transform};

    use super::{
        merge_in_place, sort_pairs, sort_pairs_shared, Band, CellSlots, CellSort, ChunkBuffers,
        GridItem, Pair, Slot, SortSlots, BOXES_SHARED_MIN, NEAR_SHARED_MIN,
    };
    use crate::body::{BodyDef, BodyKind, Material};
    use crate::buffer::SharedScratch;
    use crate::threading::{HelperBoard, Sharing, Threading};
    use crate::world::World;
    use crate::WorldSettings;

    /// Every pair of shapes whose needed boxes overlap, of different bodies
    /// with at least one dynamic, and whose dynamic shape's needed box
    /// reaches the other's band when that is a fixed wall; oriented as the
    /// broadphase orients them.
    fn brute_force(world: &World, margin: f32, dt: f32) -> Vec<(u32, u32)> {
        let (bodies, colliders) = (&world.bodies, &world.colliders);
        let motion = |c: &crate::collider::Collider| {
            let body = &bodies[c.body as usize];
            match body.kind {
                BodyKind::Static => 0.0,
                _ => body.motion_bound(dt),
            }
        };
        let needed: Vec<_> = colliders
            .iter()
            .map(|c| {
                let aabb = c.shape.aabb_at(&bodies[c.body as usize].transform);
                aabb.expanded(motion(c) + 0.5 * margin)
            })
            .collect();
        let reaches_band = |wall: usize, other: usize| {
            let c = &colliders[wall];
            let xf = &bodies[c.body as usize].transform;
            Band::of_wall(&c.shape, xf, motion(c) + 0.5 * margin)
                .map_or(true, |band| band.reaches(&needed[other]))
        };
        let dynamic = |s: usize| bodies[colliders[s].body as usize].kind == BodyKind::Dynamic;
        let mut out = Vec::new();
        for a in 0..colliders.len() {
            for b in a + 1..colliders.len() {
                let may_collide =
                    colliders[a].body != colliders[b].body && (dynamic(a) || dynamic(b));
                if may_collide && needed[a].overlaps(&needed[b]) {
                    let pair = if dynamic(a) { (a, b) } else { (b, a) };
                    if dynamic(pair.1) || reaches_band(pair.1, pair.0) {
                        out.push((pair.0 as u32, pair.1 as u32));
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Body kinds of [`scattered_world`]'s seeds (anything else is a circle).
    const CAPSULE: u8 = 1;
    const DUMBBELL: u8 = 2;

    /// An empty world without gravity or sleeping.
    fn weightless_world() -> World {
        let settings = WorldSettings {
            gravity: Vec2::ZERO,
            sleep: false,
            ..WorldSettings::default()
        };
        World::new(settings).unwrap()
    }

    /// Which of a world's shapes the broadphase last sorted as large.
    fn large_shapes(world: &World) -> Vec<usize> {
        let slots = &world.broadphase.index.slots;
        (0..slots.len())
            .filter(|&i| slots[i] == Slot::Large)
            .collect()
    }

    #[test]
    fn shapes_far_above_the_median_size_are_large_and_at_most_a_few_of_them() {
        // 200 circles of radius 0.2 and, after them, big circles of
        // growing radius, all far apart and at rest.
        let world_with = |big: usize| {
            let mut world = weightless_world();
            for k in 0..200 + big {
                let radius = if k < 200 {
                    0.2
                } else {
                    1.0 + 0.01 * (k - 200) as f32
                };
                let def =
                    BodyDef::dynamic().position(10.0 * (k % 20) as f32, 10.0 * (k / 20) as f32);
                let body = world.create_body(def).unwrap();
                let circle = Circle::new(Vec2::ZERO, radius).unwrap();
                world.add_shape(body, circle, Material::default()).unwrap();
            }
            world.step();
            world
        };
        // A few big ones: each is large (its box is over twice the median).
        assert_eq!(
            large_shapes(&world_with(10)),
            (200..210).collect::<Vec<_>>()
        );
        // Too many: only the largest 16 (5 % of 260 is fewer) are large, the
        // limit rising to leave the rest in the grid.
        assert_eq!(
            large_shapes(&world_with(60)),
            (244..260).collect::<Vec<_>>()
        );
    }

    /// A world of circles, capsules and two-circle bodies moving through
    /// each other at mixed speeds, with walls and a kinematic bar.
    fn scattered_world(seeds: &[(f32, f32, f32, f32, u8)]) -> World {
        let mut world = weightless_world();
        let walls = world.create_body(BodyDef::fixed()).unwrap();
        for (a, b) in [
            ((-12.0, -12.0), (12.0, -12.0)),
            ((-12.0, -12.0), (-12.0, 12.0)),
        ] {
            let segment = Segment::new(Vec2::from(a), Vec2::from(b)).unwrap();
            world
                .add_shape(walls, segment, Material::default())
                .unwrap();
        }
        let bar = world
            .create_body(
                BodyDef::kinematic()
                    .position(0.0, -5.0)
                    .angular_velocity(2.0),
            )
            .unwrap();
        let stadium = Stadium::new(Vec2::new(-4.0, 0.0), Vec2::new(4.0, 0.0), 0.2).unwrap();
        world.add_shape(bar, stadium, Material::default()).unwrap();
        for &(x, y, vx, vy, kind) in seeds {
            let body = world
                .create_body(BodyDef::dynamic().position(x, y).velocity(vx, vy))
                .unwrap();
            match kind {
                CAPSULE => {
                    let shape =
                        Stadium::new(Vec2::new(-0.3, 0.0), Vec2::new(0.3, 0.0), 0.2).unwrap();
                    world.add_shape(body, shape, Material::default()).unwrap();
                }
                DUMBBELL => {
                    // Two overlapping circles of one body, which must never pair.
                    for x in [-0.2, 0.2] {
                        let shape = Circle::new(Vec2::new(x, 0.0), 0.25).unwrap();
                        world.add_shape(body, shape, Material::default()).unwrap();
                    }
                }
                _ => {
                    let shape = Circle::new(Vec2::ZERO, 0.25).unwrap();
                    world.add_shape(body, shape, Material::default()).unwrap();
                }
            }
        }
        world
    }

    /// Removing every body, stepping an empty world and adding bodies again
    /// starts the pairs afresh: the new bodies find each other and the wall,
    /// and nothing of the old world is left in the index.
    #[test]
    fn a_landing_pile_takes_its_buffers_from_the_steps_room() {
        // After the first steps the room a step lends holds every buffer the
        // broadphase needs, full searches and merges alike, so none of its
        // own fallback buffers stays allocated.
        let mut world = crate::scene::Scene::circle_pile(2000)
            .build_world()
            .unwrap();
        let mut changed = 0;
        for step in 0..150 {
            let pairs = world.broadphase.pairs.len();
            world.step();
            if step < 20 {
                continue;
            }
            changed += usize::from(world.broadphase.pairs.len() != pairs);
            let spare = &world.broadphase.spare;
            let held = [
                spare.near.capacity(),
                spare.by_b.capacity(),
                spare.starts.capacity(),
                spare.sizes.capacity(),
                spare.cell_start.capacity(),
                spare.grid_items.capacity(),
            ];
            assert_eq!(held, [0; 6], "step {step}");
        }
        assert!(changed > 0, "the pile never changed its pairs");
    }

    #[test]
    fn a_world_emptied_and_refilled_finds_its_new_pairs() {
        let mut world = scattered_world(&[(0.0, 0.0, 1.0, 0.0, 0), (0.4, 0.0, 0.0, 0.0, CAPSULE)]);
        world.step();
        let handles: Vec<_> = world.bodies().map(|b| b.handle()).collect();
        for h in handles {
            world.remove_body(h).unwrap();
        }
        world.step();
        assert!(world.broadphase.pairs.is_empty());
        let wall = world.create_body(BodyDef::fixed()).unwrap();
        let floor = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap();
        world.add_shape(wall, floor, Material::default()).unwrap();
        for x in [0.0, 0.45] {
            let ball = world
                .create_body(BodyDef::dynamic().position(x, 0.2))
                .unwrap();
            let circle = Circle::new(Vec2::ZERO, 0.25).unwrap();
            world.add_shape(ball, circle, Material::default()).unwrap();
        }
        // Shapes 1 and 2 are the balls, 0 the floor.
        assert_eq!(near_pairs(&mut world), vec![(1, 0), (1, 2), (2, 0)]);
    }

    /// The pairs the next step will hand on, found as the step finds them.
    fn near_pairs(world: &mut World) -> Vec<(u32, u32)> {
        near_pairs_shared(world, None)
    }

    /// [`near_pairs`], with the searches shared on `helper` when given.
    fn near_pairs_shared(world: &mut World, helper: Option<&HelperBoard>) -> Vec<(u32, u32)> {
        let (margin, dt) = (world.settings().speculative_distance, world.settings().dt);
        let version = world.static_version;
        let shapes = world.colliders.len();
        let (mut scratch, mut empty) = (SharedScratch::default(), SharedScratch::default());
        let (views, needed) = scratch.lend_two(shapes, shapes);
        let (found, _) = world.broadphase.find_pairs(
            &world.bodies,
            &world.colliders,
            margin,
            dt,
            version,
            Sharing {
                threading: Threading::Pool,
                helper,
            },
            views,
            needed,
            // No room: the broadphase falls back on buffers of its own
            // (a step lends it room, so both ways are tested).
            empty.room(0),
        );
        found.iter().map(|p| (p.a, p.b)).collect()
    }

    /// The pairs a step hands on, checked against brute force; returns how
    /// many there are.
    fn assert_near_pairs_are_exact(world: &mut World, step: usize) -> usize {
        let (margin, dt) = (world.settings().speculative_distance, world.settings().dt);
        let pairs = near_pairs(world);
        assert_eq!(pairs, brute_force(world, margin, dt), "step {step}");
        pairs.len()
    }

    #[test]
    fn a_slowly_turning_wall_finds_the_resting_shapes_it_turns_into() {
        // A bar slow enough to keep its enlarged box for many steps turns
        // onto balls at rest: its pairs are kept from when its box was last
        // grown, and the near ones must follow its band as it turns.
        let mut world = weightless_world();
        // Turning towards level, the bar's box narrows faster than it
        // widens, so it stays inside its enlarged box for several steps
        // while its ends sweep down onto the balls.
        let bar = world
            .create_body(BodyDef::kinematic().angle(0.15).angular_velocity(-0.6))
            .unwrap();
        let stadium = Stadium::new(Vec2::new(-4.0, 0.0), Vec2::new(4.0, 0.0), 0.1).unwrap();
        world.add_shape(bar, stadium, Material::default()).unwrap();
        for angle in [-0.05, std::f32::consts::PI + 0.05] {
            for radius in [2.0, 3.0, 3.8] {
                let (y, x) = angle.sin_cos();
                let ball = world
                    .create_body(BodyDef::dynamic().position(radius * x, radius * y))
                    .unwrap();
                let circle = Circle::new(Vec2::ZERO, 0.1).unwrap();
                world.add_shape(ball, circle, Material::default()).unwrap();
            }
        }
        for step in 0..60 {
            assert_near_pairs_are_exact(&mut world, step);
            world.step();
            // The bar alone moves out of its box, now and then, so its
            // pairs come from testing every box rather than from the grid;
            // the kinematic tree, which continuous collision asks, must
            // still hold the bar's current box.
            let index = &world.broadphase.index;
            let bar_box = index.enlarged[0];
            let mut held = Vec::new();
            index
                .trees
                .kinematic
                .for_each_overlap(&bar_box, |shape, aabb| held.push((shape, *aabb)));
            assert_eq!(held, vec![(0, bar_box)], "step {step}");
        }
    }

    #[test]
    fn boxes_updated_and_pairs_picked_on_two_threads_match_one_thread() {
        // Enough circles for both halves of the boxes and of the kept pairs
        // to go to two threads, with a spinning bar among the first shapes
        // and another among the last, so that both halves find bands.
        let world = || {
            let mut world = weightless_world();
            let add_bar = |world: &mut World, y: f32| {
                let def = BodyDef::kinematic().position(0.0, y).angular_velocity(1.5);
                let bar = world.create_body(def).unwrap();
                let stadium = Stadium::new(Vec2::new(-6.0, 0.0), Vec2::new(6.0, 0.0), 0.2);
                let material = Material::default();
                world.add_shape(bar, stadium.unwrap(), material).unwrap();
            };
            add_bar(&mut world, 10.0);
            for k in 0..(BOXES_SHARED_MIN + 1_000) {
                let (x, y) = ((k % 100) as f32 * 0.45, (k / 100) as f32 * 0.45);
                let def = BodyDef::dynamic()
                    .position(x - 22.0, y)
                    .velocity((k % 7) as f32 - 3.0, (k % 5) as f32 - 2.0);
                let ball = world.create_body(def).unwrap();
                let circle = Circle::new(Vec2::ZERO, 0.2).unwrap();
                world.add_shape(ball, circle, Material::default()).unwrap();
            }
            add_bar(&mut world, 30.0);
            world
        };
        let (mut alone, mut shared) = (world(), world());
        for step in 0..8 {
            let board = HelperBoard::default();
            let on_two = std::thread::scope(|scope| {
                let _close = board.closer();
                scope.spawn(|| board.help());
                near_pairs_shared(&mut shared, Some(&board))
            });
            let on_one = near_pairs(&mut alone);
            assert!(
                on_one.len() >= NEAR_SHARED_MIN,
                "step {step}: both halves picked"
            );
            assert_eq!(on_two, on_one, "step {step}");
            let (two, one) = (&shared.broadphase.index, &alone.broadphase.index);
            assert_eq!(two.kinematic_bands, one.kinematic_bands, "step {step}");
            assert_eq!(two.kinematic_bands.len(), 2, "step {step}");
            assert_eq!(two.moved, one.moved, "step {step}");
            assert_eq!(two.enlarged, one.enlarged, "step {step}");
            alone.step();
            shared.step();
        }
    }

    #[test]
    fn a_line_of_boxes_that_barely_overlap_pairs_up_far_from_the_origin() {
        // Equal circles in a line far from the origin, all moving alike, so
        // that all pairs are found afresh each step. Their boxes are as wide
        // as the largest, so the cells are barely wider, and the spacing
        // makes neighbouring boxes overlap by a fraction of a millimetre:
        // neighbours' centres lie almost a cell apart, the case the sweep's
        // neighbour rule and its rounding margin are for.
        let mut world = weightless_world();
        // Box width 2·(0.25 + |v|·dt + margin/2) ≈ 0.6402 m.
        for k in 0..200 {
            let x = 40_000.0 + 0.64 * k as f32;
            let ball = world
                .create_body(BodyDef::dynamic().position(x, -30_000.0).velocity(3.0, 2.0))
                .unwrap();
            let circle = Circle::new(Vec2::ZERO, 0.25).unwrap();
            world.add_shape(ball, circle, Material::default()).unwrap();
        }
        for step in 0..5 {
            let pairs = assert_near_pairs_are_exact(&mut world, step);
            assert!(pairs >= 199, "step {step}: only {pairs} pairs");
            world.step();
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// A wall's band never leaves out a shape the narrowphase would give
        /// a point: segments and stadiums of any pose against circles and
        /// capsules of any pose, with motions and margins.
        #[test]
        fn a_wall_band_keeps_every_pair_the_narrowphase_would_touch(
            (ax, ay, bx, by) in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
            wall_radius in prop_oneof![Just(0.0f32), 0.05f32..1.0],
            angle in -3.2f32..3.2,
            (x, y, r) in (-8.0f32..8.0, -8.0f32..8.0, 0.05f32..1.0),
            capsule in any::<bool>(),
            (wall_motion, motion, half_margin) in (0.0f32..0.5, 0.0f32..0.5, 0.0f32..0.1),
        ) {
            let (a, b) = (Vec2::new(ax, ay), Vec2::new(bx, by));
            let wall: Shape = if wall_radius > 0.0 {
                let Ok(stadium) = Stadium::new(a, b, wall_radius) else { return Ok(()) };
                stadium.into()
            } else {
                let Ok(segment) = Segment::new(a, b) else { return Ok(()) };
                segment.into()
            };
            let other: Shape = if capsule {
                Stadium::new(Vec2::new(-r, 0.0), Vec2::new(r, 0.0), 0.5 * r).unwrap().into()
            } else {
                Circle::new(Vec2::ZERO, r).unwrap().into()
            };
            let wall_xf = Transform::new(Vec2::new(0.5, -0.25), 0.3);
            let xf = Transform::new(Vec2::new(x, y), angle);
            // What the narrowphase would be asked: every point within the
            // margin plus both motions.
            let reach = 2.0 * half_margin + wall_motion + motion;
            let manifold = collide(&wall, &wall_xf, &other, &xf, reach);
            let needed = other.aabb_at(&xf).expanded(motion + half_margin);
            let band = Band::of_wall(&wall, &wall_xf, wall_motion + half_margin).unwrap();
            prop_assert!(manifold.is_empty() || band.reaches(&needed));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Step after step, with shapes settling, crawling and racing, the
        /// pairs handed on are exactly those whose needed boxes overlap (and
        /// reach a fixed wall's band), once each, sorted, whether found afresh
        /// or kept and updated.
        #[test]
        fn kept_pairs_cover_every_pair_that_can_touch(
            seeds in prop::collection::vec(
                (-10.0f32..10.0, -10.0f32..10.0, -30.0f32..30.0, -30.0f32..30.0, 0u8..3),
                2..120,
            ),
            slow in 0.0f32..1.0,
        ) {
            let mut world = scattered_world(&seeds);
            for step in 0..40 {
                // Slow a share of the bodies down so that some stay inside
                // their enlarged boxes while others leave them.
                if step == 10 {
                    for b in world.bodies.iter_mut().filter(|b| b.kind == BodyKind::Dynamic) {
                        if b.center.x.abs() < 10.0 * slow {
                            b.linear_velocity *= 0.01;
                        }
                    }
                }
                assert_near_pairs_are_exact(&mut world, step);
                world.step();
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Sorting the grid shapes into cells in two halves on two threads
        /// gives the cell starts and items of one thread's sort: every grid
        /// shape once, in its cell, a cell's shapes in shape order.
        #[test]
        fn grid_shapes_sorted_into_cells_on_two_threads_come_out_as_on_one(
            seeds in prop::collection::vec(
                (-10.0f32..10.0, -10.0f32..10.0, -3.0f32..3.0, -3.0f32..3.0, 0u8..3),
                1..200,
            ),
        ) {
            let mut world = scattered_world(&seeds);
            world.step();
            let index = &world.broadphase.index;
            let (layout, count) = index.grid_layout(None).unwrap();
            let cells = (layout.columns * layout.rows) as usize;
            let sorter = CellSort { index, layout: &layout, inv_cell: 1.0 / layout.cell };
            let shapes = index.slots.len();
            let (mut starts, mut items) = (vec![MaybeUninit::uninit(); cells + 2], vec![MaybeUninit::uninit(); count]);
            let mut noted = vec![MaybeUninit::uninit(); shapes];
            let slots = CellSlots { starts: &mut starts, items: &mut items, cells: &mut noted, front: None };
            let (starts_one, items_one) = sorter.sort(slots);
            let (mut starts, mut items) = (vec![MaybeUninit::uninit(); cells + 2], vec![MaybeUninit::uninit(); count]);
            let (mut noted, mut front) = (vec![MaybeUninit::uninit(); shapes], vec![MaybeUninit::uninit(); cells]);
            let slots = CellSlots { starts: &mut starts, items: &mut items, cells: &mut noted, front: Some(&mut front) };
            let board = HelperBoard::default();
            let (starts_two, items_two) = std::thread::scope(|scope| {
                let _close = board.closer();
                scope.spawn(|| board.help());
                sorter.sort_shared(slots, &board, || ())
            });
            prop_assert_eq!(starts_one, starts_two);
            let listed = |items: &[GridItem]| items.iter().map(|i| (i.shape, i.owner)).collect::<Vec<_>>();
            prop_assert_eq!(listed(items_one), listed(items_two));
            let grid_shapes = (0..shapes).filter(|&s| index.slots[s] == Slot::Grid);
            prop_assert_eq!(items_one.len(), grid_shapes.clone().count());
            for cell in 0..cells {
                let run = &items_one[starts_one[cell] as usize..starts_one[cell + 1] as usize];
                for item in run {
                    prop_assert_eq!(sorter.cell_of(&index.enlarged[item.shape as usize]), cell);
                    prop_assert_eq!(item.owner, index.owners[item.shape as usize]);
                }
                prop_assert!(run.windows(2).all(|w| w[0].shape < w[1].shape));
            }
        }
    }

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

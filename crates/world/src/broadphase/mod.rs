//! Broadphase: which pairs of shapes are close enough to need a manifold.
//!
//! **Persistent pairs.** Each step a moving shape *needs* a box: its
//! shape's box grown by how far its body may move in the step and by half
//! the speculative margin. Two shapes can touch within the step only if
//! their needed boxes overlap. Each shape also keeps an *enlarged box*
//! containing its needed box, and the candidate pairs are kept between
//! steps: every pair whose enlarged boxes overlap. A slow shape's enlarged
//! box is its needed box grown by a slack (a tenth of its size, at most
//! `SLACK_MAX`), so it stays valid while the shape settles; a fast shape
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

mod band;
mod grid;
mod index;
mod search;
mod sort;
#[cfg(test)]
mod tests;

use std::mem::MaybeUninit;

use carom_shapes::Aabb;

use crate::body::Body;
use crate::buffer::{assume_written, Room};
use crate::collider::{Collider, StepCollider};
use crate::threading::Sharing;

use grid::{BlockLists, GridItem, GridSpare};
use index::Index;
use search::{PairFinder, Search};
use sort::{keep_found, SortSlots};

/// A candidate pair of shapes (dense shape indices). `a` is a shape of a
/// dynamic body; when both are dynamic, `a < b`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Pair {
    pub a: u32,
    pub b: u32,
}

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

/// Shapes from which the pairs found by a full search are sorted on two
/// threads.
const SORT_SHARED_MIN: usize = 8_192;

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
                index
                    .trees
                    .rebuild_kinematic(&index.slots, index.counts, &index.enlarged);
            }
            let index = &self.index;
            let partners = |m, out: &mut Vec<u32>| index.overlapping(m, out);
            self.search
                .find_moved(index, partners, &mut self.pairs, sharing);
        } else if moved > 0 || fresh {
            let shapes = colliders.len();
            // Which shapes can move changes only with the shapes (`fresh`,
            // when the counts are taken anew below).
            let moving = index.counts.moving as f32;
            let full = fresh || moved as f32 >= REBUILD_FRACTION * moving;
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

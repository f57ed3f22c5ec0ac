//! The uniform grid of small dynamic shapes, rebuilt by a counting sort
//! when shapes moved, and the lists of tree shapes near each block of
//! cells.

use std::mem::MaybeUninit;
use std::ops::Range;

use carom_shapes::Aabb;
use glam::Vec2;

use crate::buffer::{assume_written, zeroed, Room};
use crate::threading::{share_each, HelperBoard};
use crate::tree::AabbTree;

use super::index::{box_size, Index, Slot};
use super::search::push_passing;
use super::sort::begin_runs_of_halves;

/// At most this many grid cells along either axis, so that rounding cell
/// indices stays far below a cell (see [`Index::grid_layout`]).
const MAX_CELLS_ACROSS: f32 = 65536.0;

/// Grid cells per block side: each block queries the trees once for the
/// grid shapes in its cells.
const BLOCK: i32 = 4;

/// Grid shapes from which one thread sorts them into cells while another
/// rebuilds the trees and lists the blocks.
const GRID_SHARED_MIN: usize = 8_192;

/// Uniform grid over the small dynamic shapes' enlarged boxes, built for
/// a step in which shapes moved. Its cells and items live in memory lent
/// to the step (see [`Index::build_trees_and_grid`]).
#[derive(Debug)]
pub(super) struct Grid<'a> {
    origin: Vec2,
    /// Side of a cell.
    cell: f32,
    inv_cell: f32,
    pub(super) columns: i32,
    pub(super) rows: i32,
    /// `cell_start[c]..cell_start[c + 1]` indexes `items` for cell `c`.
    pub(super) cell_start: &'a [u32],
    /// The shapes ordered by cell, then by shape index, each with its
    /// enlarged box beside it so that a scan reads one contiguous run.
    pub(super) items: &'a [GridItem],
    /// Blocks per row of blocks.
    block_columns: i32,
    blocks: &'a BlockLists,
}

/// Per block of [`BLOCK`]² cells, the tree shapes whose boxes overlap the
/// block's cells grown by one cell, with those boxes. Kept from step to
/// step (it is small), unlike the grid's cells and items.
#[derive(Debug, Default)]
pub(super) struct BlockLists {
    /// `start[k]..start[k + 1]` indexes `items` for block `k` (blocks row
    /// by row).
    start: Vec<u32>,
    items: Vec<(u32, Aabb)>,
}

/// A shape in the grid.
#[derive(Debug, Clone, Copy)]
pub(super) struct GridItem {
    pub(super) shape: u32,
    /// The shape's body: shapes of one body make no pair.
    pub(super) owner: u32,
    pub(super) aabb: Aabb,
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
    pub(super) fn row_run(&self, row: i32, first: i32, last: i32) -> &[GridItem] {
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
    pub(super) fn collect_overlaps(
        &self,
        query: &Aabb,
        wanted: impl Fn(u32) -> bool,
        out: &mut Vec<u32>,
    ) {
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
    pub(super) fn cells_beginning_in(&self, first: usize, count: usize) -> std::ops::Range<usize> {
        let starts = &self.cell_start[..self.cell_start.len() - 1];
        let from = |item: usize| starts.partition_point(|&s| (s as usize) < item);
        from(first)..from(first + count)
    }

    /// The tree shapes near the block holding point `p`, with their boxes.
    #[inline]
    pub(super) fn block_items(&self, p: Vec2) -> &[(u32, Aabb)] {
        let (x, y) = self.cell_coords(p);
        self.block_items_of_cell(x, y)
    }

    /// The tree shapes near the block holding cell `(x, y)`, with their
    /// boxes.
    #[inline]
    pub(super) fn block_items_of_cell(&self, x: i32, y: i32) -> &[(u32, Aabb)] {
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

/// A grid's spare buffers (see [`Spare`](super::Spare)).
pub(super) struct GridSpare<'a> {
    pub(super) cell_start: &'a mut Vec<u32>,
    pub(super) items: &'a mut Vec<GridItem>,
    pub(super) front_cursors: &'a mut Vec<u32>,
    pub(super) cells: &'a mut Vec<u32>,
}

impl Index {
    /// Rebuilds the kinematic and large-shape trees (and the static one when
    /// the shapes changed), lists `blocks` anew for the grid, and sorts the
    /// grid shapes into cells by a counting sort, in slots of `room` (or of
    /// `spare` when it falls short). With a `helper` board, the trees and
    /// blocks are built on one thread while the two halves of the grid
    /// shapes are counted (see [`CellSort`]), and the halves are then
    /// placed on a thread each: the trees are taken out of the index
    /// meanwhile, so that the sort may read the rest of it.
    pub(super) fn build_trees_and_grid<'a>(
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
            let index = sorter.index;
            trees.rebuild(&index.slots, index.counts, &index.enlarged, fresh);
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

#[cfg(test)]
mod tests {
    use std::mem::MaybeUninit;

    use proptest::prelude::*;

    use super::{CellSlots, CellSort, GridItem};
    use crate::broadphase::index::Slot;
    use crate::broadphase::tests::scattered_world;
    use crate::threading::HelperBoard;

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
}

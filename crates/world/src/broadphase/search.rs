//! Searches for pairs: every pair afresh, or the moved shapes' partners,
//! in fixed tasks shared out over threads.

use rayon::prelude::*;

use crate::threading::{share_slots, Sharing, Threading};

use super::grid::{Grid, GridItem};
use super::index::{Index, Slot};
use super::sort::merge_in_place;
use super::Pair;

/// One search task's buffers: the pairs it found and a scratch list of
/// partners.
#[derive(Debug, Default)]
pub(super) struct ChunkBuffers {
    pub(super) pairs: Vec<Pair>,
    pub(super) scratch: Vec<u32>,
}

/// Shapes handed to one task when finding pairs in parallel (queriers, or
/// grid items whose cells are swept). Fixed, so the split does not depend
/// on the number of threads.
const PAIR_CHUNK: usize = 256;

/// The buffers of a search for pairs.
#[derive(Debug, Default)]
pub(super) struct Search {
    /// The shapes that look for partners this step, in shape order.
    queriers: Vec<u32>,
    /// Per search task: its buffers.
    chunks: Vec<ChunkBuffers>,
}

impl Search {
    /// Finds every pair afresh. The grid is swept cell by cell: each cell
    /// pairs its shapes with each other, with the cell to its right and
    /// with the three cells above (see [`PairFinder::sweep_cell`]), so every
    /// pair of grid shapes is tested once; a grid shape also meets its
    /// block's tree shapes. Large shapes query the trees for fixed shapes
    /// and for the large shapes after them. The pairs come out in cell
    /// order and are then sorted by shape, in linear time
    /// ([`keep_found`](super::sort::keep_found)).
    ///
    /// A task sweeps the cells whose items begin in one run of
    /// [`PAIR_CHUNK`] items (so each task's share of pairs, and its buffer,
    /// stays about the same from step to step), or queries for a run of
    /// large shapes. Returns the buffers holding the pairs found.
    pub(super) fn find_all(&mut self, finder: &PairFinder, sharing: Sharing) -> &[ChunkBuffers] {
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
    pub(super) fn find_moved(
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

/// Runs `find` on each task `0..tasks`, each with its own buffers, shared
/// out as `sharing` says; returns how many buffers were used, whose pairs
/// are in `chunks` in task order. On the calling thread the tasks run in
/// order into one buffer, so no task keeps a buffer of its own (each grew
/// to its own largest share of pairs).
pub(super) fn search(
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

/// Read-only view used by the parallel pair search.
pub(super) struct PairFinder<'a> {
    pub(super) index: &'a Index,
    pub(super) grid: &'a Grid<'a>,
}

impl PairFinder<'_> {
    /// Appends every other shape whose enlarged box overlaps `a`'s.
    pub(super) fn partners(&self, a: u32, out: &mut Vec<u32>) {
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
pub(super) fn push_passing<I, T: Copy>(
    out: &mut Vec<T>,
    run: &[I],
    test: impl Fn(&I) -> (T, bool),
) {
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

//! The index of shapes: per shape its enlarged box, whether it moved and
//! how it is indexed (grid, trees), updated once a step; the trees; and
//! what the kept pairs are picked and oriented by.

use std::mem::MaybeUninit;
use std::time::{Duration, Instant};

use carom_shapes::Aabb;
use glam::Vec2;

use crate::body::{Body, BodyKind};
use crate::buffer::assume_written;
use crate::collider::{Collider, StepCollider};
use crate::threading::{share_each, HelperBoard};
use crate::tree::AabbTree;

use super::band::Band;
use super::Pair;

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

/// Slack of an enlarged box, as a fraction of the shape's box size...
const SLACK_FRACTION: f32 = 0.1;

/// ...and at most this, metres: enough that resting and slowly moving
/// shapes stay inside their boxes, small enough to add few pairs.
const SLACK_MAX: f32 = 0.1;

/// Kept pairs from which two threads pick the near ones, each half: below
/// this, moving the second half's picks and meeting costs about what the
/// second thread saves.
pub(super) const NEAR_SHARED_MIN: usize = 8_192;

/// Shapes from which two threads update the boxes, each half.
pub(super) const BOXES_SHARED_MIN: usize = 8_192;

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
pub(super) fn box_size(b: &Aabb) -> f32 {
    let d = b.max - b.min;
    d.x.max(d.y)
}

/// How a shape is indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// A small dynamic shape, in the grid.
    Grid,
    /// A large dynamic shape, in the large-shape tree.
    Large,
    /// A kinematic shape, in the kinematic tree.
    Kinematic,
    /// A static shape, in the static tree.
    Static,
}

/// The boxes and the structures that find overlapping ones: what the
/// parallel pair search reads.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// Per shape: the box its pairs were found with.
    pub(super) enlarged: Vec<Aabb>,
    /// Per shape: whether its needed box left its enlarged box this step.
    pub(super) moved: Vec<bool>,
    /// Per shape: the larger side of its tight box this step.
    sizes: Vec<f32>,
    /// The bands of the static walls (kept while the shapes stay the same)
    /// and of the kinematic ones (this step's), each sorted by shape.
    static_bands: Vec<(u32, Band)>,
    pub(super) kinematic_bands: Vec<(u32, Band)>,
    back_bands: BandLists,
    pub(super) slots: Vec<Slot>,
    /// How many shapes some kinds of slot hold, kept as the slots change.
    pub(super) counts: SlotCounts,
    /// Per shape: its body, so the search never reads bodies or colliders.
    pub(super) owners: Vec<u32>,
    pub(super) trees: Trees,
    /// The box size above which the last classification sent a grid shape
    /// to the large-shape tree.
    large_limit: f32,
    /// Where two threads split the boxes' update (see
    /// [`Index::update_boxes`]).
    boxes_split: BoxesSplit,
}

/// Where two threads split the shapes whose boxes they update: a fraction
/// of the shapes for the front part, moved each step toward the split at
/// which the last step's two parts would have taken as long. Only which
/// thread updates which boxes follows the clock; every box comes out the
/// same. (On the hopper the back half, the rows created last and so on
/// top of the pile, took a median 6 µs longer than the front.)
#[derive(Debug)]
struct BoxesSplit {
    front: f32,
}

impl Default for BoxesSplit {
    fn default() -> BoxesSplit {
        BoxesSplit { front: 0.5 }
    }
}

impl BoxesSplit {
    /// The front part's share never leaves this far from half, so that a
    /// step in which one thread was taken off its core cannot skew the next
    /// one's much.
    const MAX_SKEW: f32 = 0.25;

    /// The first shape of the back part among `shapes` (the front part's
    /// share is below one, so the back part is never empty).
    fn mid(&self, shapes: usize) -> usize {
        (shapes as f32 * self.front) as usize
    }

    /// Moves the split halfway toward the one that would have balanced
    /// parts of `counts` shapes that took `times`.
    fn balance(&mut self, counts: [usize; 2], times: [Duration; 2]) {
        let [front, back] = counts.map(|n| n.max(1) as f32);
        let per_shape = [
            times[0].as_secs_f32() / front,
            times[1].as_secs_f32() / back,
        ];
        let sum = per_shape[0] + per_shape[1];
        if sum > 0.0 {
            let even = per_shape[1] / sum;
            let front = 0.5 * (self.front + even);
            self.front = front.clamp(0.5 - Self::MAX_SKEW, 0.5 + Self::MAX_SKEW);
        }
    }
}

/// How many shapes are moving (not static), kinematic and large, kept as
/// the slots change: a tree of no shapes is then rebuilt, and the moving
/// shapes counted, without a pass over every shape (in a settled pile of
/// circles, two such passes had taken some 10 µs of every grid step).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct SlotCounts {
    pub(super) moving: usize,
    kinematic: usize,
    large: usize,
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

impl Index {
    /// Writes the pairs of `pairs` that may touch this step (see
    /// [`Index::is_near`]) into the first of `slots` (one per pair), and
    /// returns them. With a `helper` board and enough pairs, each half of
    /// the pairs is picked on its own thread into its half of the slots, and
    /// the second half's picks are then moved down to follow the first's:
    /// the same list either way.
    pub(super) fn pick_near<'a>(
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
    pub(super) fn pair_of(&self, m: u32, s: u32) -> Option<Pair> {
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
    pub(super) fn overlapping(&self, a: u32, out: &mut Vec<u32>) {
        let query = &self.enlarged[a as usize];
        for (s, aabb) in self.enlarged.iter().enumerate() {
            if aabb.overlaps(query) && s != a as usize {
                out.push(s as u32);
            }
        }
    }

    /// The band of `shape`, if it is a fixed wall.
    pub(super) fn band_of(&self, shape: u32) -> Option<&Band> {
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
    /// the later shapes are updated on another thread (whose narrowphase,
    /// which takes pairs from the back, then reads mostly the views it
    /// wrote), as many as keep the two parts' times even (see
    /// [`BoxesSplit`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn update_boxes(
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
        let mid = if board.is_some() {
            self.boxes_split.mid(n)
        } else {
            n
        };
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
        // Each part is timed only when the parts are shared, for the
        // next step's split.
        let update = |mut part: BoxPart| {
            let start = board.map(|_| Instant::now());
            (part.update(&step), start.map(|start| start.elapsed()))
        };
        let [(front_moved, front_time), (back_moved, back_time)] =
            share_each(board, [front, back], update, failed);
        if let (Some(front_time), Some(back_time)) = (front_time, back_time) {
            self.boxes_split
                .balance([mid, n - mid], [front_time, back_time]);
        }
        let count = front_moved + back_moved;
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
    pub(super) fn classify(
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
            let count = |kind: Slot| self.slots.iter().filter(|s| **s == kind).count();
            self.counts.moving = self.slots.len() - count(Slot::Static);
            self.counts.kinematic = count(Slot::Kinematic);
        }
        let count = regrid_noting_sizes(&mut self.slots, &self.sizes, |&size| size, sizes);
        self.counts.large = 0;
        if count == 0 {
            return;
        }
        // SAFETY: the first `count` slots were written just above.
        let written = unsafe { assume_written(&mut sizes[..count]) };
        let (_, median, _) = written.select_nth_unstable_by(count / 2, f32::total_cmp);
        let mut limit = LARGE_FACTOR * median.max(f32::MIN_POSITIVE);
        let most_large = ((MAX_LARGE_FRACTION * count as f32) as usize).max(MIN_LARGE);
        self.counts.large = self.mark_large(limit);
        if self.counts.large > most_large {
            // Too many: the limit rises to the box size that leaves
            // `most_large` above it, among the same grid shapes.
            let count = regrid_noting_sizes(&mut self.slots, &self.enlarged, box_size, sizes);
            // SAFETY: as above.
            let written = unsafe { assume_written(&mut sizes[..count]) };
            let at = count - 1 - most_large;
            limit = *written.select_nth_unstable_by(at, f32::total_cmp).1;
            self.counts.large = self.mark_large(limit);
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
    pub(super) fn move_grown_to_large(&mut self) {
        let limit = self.large_limit;
        let shapes = self.slots.iter_mut().zip(&self.enlarged).zip(&self.moved);
        for ((slot, enlarged), &moved) in shapes {
            if moved && *slot == Slot::Grid && box_size(enlarged) > limit {
                *slot = Slot::Large;
                self.counts.large += 1;
            }
        }
    }

    /// Whether a kinematic shape's needed box left its enlarged box this
    /// step.
    pub(super) fn kinematic_moved(&self) -> bool {
        let slots = self.slots.iter().zip(&self.moved);
        self.counts.kinematic > 0
            && slots
                .filter(|(s, _)| **s == Slot::Kinematic)
                .any(|(_, moved)| *moved)
    }
}

/// The index's trees: of static shapes (rebuilt only when the shapes
/// change), of kinematic ones, and of large dynamic ones. Taken out of the
/// index while they are rebuilt beside the grid (see
/// [`Index::build_trees_and_grid`]).
#[derive(Debug, Default)]
pub(super) struct Trees {
    pub(super) fixed: AabbTree,
    pub(super) kinematic: AabbTree,
    pub(super) large: AabbTree,
}

impl Trees {
    /// Rebuilds the kinematic and large-shape trees from the shapes'
    /// `slots` (of which there are `counts`) and `enlarged` boxes, and the
    /// static one when the shapes changed (`fresh`).
    pub(super) fn rebuild(
        &mut self,
        slots: &[Slot],
        counts: SlotCounts,
        enlarged: &[Aabb],
        fresh: bool,
    ) {
        if fresh {
            let statics = slots.len() - counts.moving;
            self.fixed
                .rebuild(boxes_in(slots, enlarged, Slot::Static, statics));
        }
        self.large
            .rebuild(boxes_in(slots, enlarged, Slot::Large, counts.large));
        self.rebuild_kinematic(slots, counts, enlarged);
    }

    /// Rebuilds the kinematic tree from the kinematic shapes' `enlarged`
    /// boxes.
    pub(super) fn rebuild_kinematic(
        &mut self,
        slots: &[Slot],
        counts: SlotCounts,
        enlarged: &[Aabb],
    ) {
        self.kinematic
            .rebuild(boxes_in(slots, enlarged, Slot::Kinematic, counts.kinematic));
    }

    /// The static, kinematic and large-shape trees.
    pub(super) fn all(&self) -> [&AabbTree; 3] {
        [&self.fixed, &self.kinematic, &self.large]
    }
}

/// The `count` shapes indexed as `slot`, each with its enlarged box
/// (`slots` and `enlarged` hold one entry per shape): the pass over the
/// shapes stops at the last of them, and makes none for no shape.
fn boxes_in<'a>(
    slots: &'a [Slot],
    enlarged: &'a [Aabb],
    slot: Slot,
    count: usize,
) -> impl Iterator<Item = (u32, Aabb)> + 'a {
    debug_assert_eq!(
        slots.iter().filter(|s| **s == slot).count(),
        count,
        "the slots' counts follow the slots"
    );
    let shapes = slots.iter().zip(enlarged).enumerate();
    shapes
        .filter(move |(_, (s, _))| **s == slot)
        .map(|(i, (_, b))| (i as u32, *b))
        .take(count)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(us: [u64; 2]) -> [Duration; 2] {
        us.map(Duration::from_micros)
    }

    #[test]
    fn the_boxes_split_moves_toward_parts_that_take_as_long() {
        // Even parts that took as long stay even.
        let mut split = BoxesSplit::default();
        split.balance([5_000, 5_000], micros([30, 30]));
        assert_eq!(split.mid(10_000), 5_000);
        // A back part twice as slow per shape: the parts even out with two
        // thirds of the shapes in front, which the split nears step by step
        // (halfway each time), never passing it.
        let mut last = 0.5;
        for _ in 0..20 {
            let mid = split.mid(9_000);
            let (front, back) = (mid as u64, 9_000 - mid as u64);
            split.balance([front as usize, back as usize], micros([front, 2 * back]));
            assert!(split.front > last - 1e-6 && split.front <= 2.0 / 3.0 + 1e-3);
            last = split.front;
        }
        assert!((split.front - 2.0 / 3.0).abs() < 1e-3, "{}", split.front);
        // A step with no measurable time leaves it; one far off is held
        // within a quarter of half.
        split.balance([6_000, 3_000], micros([0, 0]));
        assert!((split.front - 2.0 / 3.0).abs() < 1e-3);
        for _ in 0..10 {
            split.balance([4_500, 4_500], micros([1, 1_000]));
        }
        assert_eq!(split.front, 0.5 + BoxesSplit::MAX_SKEW);
        assert_eq!(split.mid(1_000), 750);
    }
}

//! The order bodies take in the solver's arrays.
//!
//! The constraints are cut into regions of contacts taken in the contacts'
//! order, which follows the order the bodies were created in. When that
//! order follows space (bodies made row by row, or listed as they lie), a
//! region's bodies lie near each other and a region meets only its
//! neighbours, so many regions run side by side. Bodies created in no order
//! in space give regions that reach all over the world and meet every
//! other region (see `stages::MIN_REGION_SPEEDUP`). The solver then keeps
//! the bodies in an order of its own, row by row across the world, and
//! takes the contacts by where their bodies lie in it: the regions are
//! bands again, and each region's share of the body arrays is compact.

use glam::Vec2;

use crate::body::Body;
use crate::buffer::resize_to_overwrite;
use crate::contacts::ContactEnds;

/// Where each body is kept in the solver's arrays (its *slot*), and which
/// body each slot keeps; the null body keeps the last slot.
#[derive(Debug, Clone, Default)]
pub(crate) struct SlotOrder {
    /// Per slot: the body kept there.
    body_of: Vec<u32>,
    /// Per body: its slot.
    slot_of: Vec<u32>,
    /// Scratch for ordering: each moving body's place, and the body.
    keyed: Vec<([u32; 2], u32)>,
}

impl SlotOrder {
    /// The order of `bodies` along rows (see
    /// [`SlotOrder::arrange_along_rows`]).
    #[cfg(test)]
    pub fn arranged(bodies: &[Body]) -> SlotOrder {
        let mut order = SlotOrder::default();
        order.arrange_along_rows(bodies);
        order
    }

    /// Orders the moving bodies (awake and dynamic) row by row, then the
    /// others in index order, in the buffers it has. The rows are as tall
    /// as the moving bodies' mean spacing (the box around their centres
    /// shared among them), run from the bottom up, and each goes by `x`
    /// (ties by index): a run of the order then covers a band across the
    /// world, which meets only the bands above and below it.
    pub fn arrange_along_rows(&mut self, bodies: &[Body]) {
        let rows = Rows::over(bodies);
        let n = bodies.len();
        let moving = |i: &u32| bodies[*i as usize].is_awake_dynamic();
        self.keyed.clear();
        self.keyed.extend(
            (0..n as u32)
                .filter(moving)
                .map(|i| (rows.key(bodies[i as usize].center), i)),
        );
        self.keyed.sort_unstable();
        self.body_of.clear();
        self.body_of.extend(self.keyed.iter().map(|&(_, i)| i));
        self.body_of.extend((0..n as u32).filter(|i| !moving(i)));
        self.body_of.push(n as u32);
        self.slot_of.clear();
        self.slot_of.resize(n + 1, 0);
        for (slot, &body) in self.body_of.iter().enumerate() {
            self.slot_of[body as usize] = slot as u32;
        }
    }

    /// How many bodies it orders (the null body not counted).
    pub fn bodies(&self) -> usize {
        self.body_of.len() - 1
    }

    /// Per slot, the body kept there.
    pub fn body_of(&self) -> &[u32] {
        &self.body_of
    }

    /// Per body, its slot.
    pub fn slot_of(&self) -> &[u32] {
        &self.slot_of
    }

    /// Lists the contacts `ends` (whose bodies are body indices) by where
    /// their bodies lie in the order into `sorted`: a stable counting sort
    /// by the run of [`SLOTS_PER_RUN`] slots that holds the first of their
    /// slots. The bodies that move come first in the order, so a contact
    /// that moves any is listed by one that moves. Runs rather than single
    /// slots keep the counts few (in the first level of cache); a region
    /// holds many runs, so its contacts still lie together.
    pub fn sort_contacts<'s>(
        &self,
        ends: &[ContactEnds],
        sorted: &'s mut ContactsInOrder,
    ) -> (&'s [u32], &'s [ContactEnds]) {
        let ContactsInOrder {
            ids,
            ends: in_order,
            renamed,
            counts,
        } = sorted;
        let run = |c: &ContactEnds| {
            let [a, b] = c.bodies();
            (a.min(b) / SLOTS_PER_RUN) as usize
        };
        counts.clear();
        counts.resize(self.body_of.len().div_ceil(SLOTS_PER_RUN as usize) + 1, 0);
        renamed.clear();
        renamed.extend(ends.iter().map(|c| {
            let c = c.renamed(|b| self.slot_of[b as usize]);
            counts[run(&c) + 1] += 1;
            c
        }));
        for k in 1..counts.len() {
            counts[k] += counts[k - 1];
        }
        resize_to_overwrite(ids, ends.len(), 0);
        let filler = ContactEnds::new([0, 0], 1);
        resize_to_overwrite(in_order, ends.len(), filler);
        for (i, c) in renamed.iter().enumerate() {
            let at = &mut counts[run(c)];
            ids[*at as usize] = i as u32;
            in_order[*at as usize] = *c;
            *at += 1;
        }
        (ids, in_order)
    }
}

/// The rows of [`SlotOrder::arrange_along_rows`].
struct Rows {
    /// The lower left corner of the box around the moving bodies' centres.
    lo: Vec2,
    /// One over the rows' height.
    inv_height: f32,
}

impl Rows {
    /// Rows as tall as the mean spacing of the moving bodies of `bodies`.
    fn over(bodies: &[Body]) -> Rows {
        let moving = bodies.iter().filter(|b| b.is_awake_dynamic());
        let (lo, hi, count) = moving.fold(
            (
                Vec2::splat(f32::INFINITY),
                Vec2::splat(f32::NEG_INFINITY),
                0,
            ),
            |(lo, hi, count), b| (lo.min(b.center), hi.max(b.center), count + 1),
        );
        let extent = (hi - lo).max(Vec2::splat(f32::MIN_POSITIVE));
        let height = (extent.x * extent.y / count.max(1) as f32).sqrt();
        Rows {
            lo,
            inv_height: 1.0 / height.max(f32::MIN_POSITIVE),
        }
    }

    /// Where a moving body centred at `center` goes: its row, then its
    /// `x` from the box's left side (not negative, so its bits order as
    /// its values do).
    fn key(&self, center: Vec2) -> [u32; 2] {
        let p = center - self.lo;
        [(p.y * self.inv_height) as u32, p.x.max(0.0).to_bits()]
    }
}

/// Slots per run by which [`SlotOrder::sort_contacts`] sorts.
const SLOTS_PER_RUN: u32 = 32;

/// The contacts in the order the colouring takes them when the bodies have
/// an order of their own (see [`SlotOrder::sort_contacts`]): per place, the
/// contact's index and its ends with the bodies named by their slots; and
/// scratch for the sort (the renamed ends in contact order, and counts).
#[derive(Debug, Default)]
pub(crate) struct ContactsInOrder {
    ids: Vec<u32>,
    ends: Vec<ContactEnds>,
    renamed: Vec<ContactEnds>,
    counts: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::{BodyDef, World, WorldSettings};

    /// A world of dynamic bodies at `spots` (`true` for one put to sleep
    /// by making it fixed), created in that order.
    fn world_at(spots: &[(f32, f32, bool)]) -> World {
        let mut world = World::new(WorldSettings::default()).unwrap();
        for &(x, y, fixed) in spots {
            let def = if fixed {
                BodyDef::fixed()
            } else {
                BodyDef::dynamic()
            };
            world.create_body(def.position(x, y)).unwrap();
        }
        world
    }

    #[test]
    fn bodies_of_a_grid_created_column_by_column_are_ordered_row_by_row() {
        // A 10 × 10 grid, 1 m apart: the rows (0.9 m, the mean spacing)
        // hold one grid row each.
        let spots: Vec<_> = (0..100)
            .map(|k| ((k / 10) as f32, (k % 10) as f32, false))
            .collect();
        let world = world_at(&spots);
        let order = SlotOrder::arranged(&world.bodies);
        let row_by_row: Vec<u32> = (0..100).map(|k| (k % 10) * 10 + k / 10).collect();
        assert_eq!(order.body_of()[..100], row_by_row[..]);
    }

    proptest! {
        /// The order keeps each body in one slot, the moving ones first,
        /// row by row from the bottom up and along each row by `x`, then
        /// the others in index order, and the null body last.
        #[test]
        fn the_order_takes_each_body_once_row_by_row(
            spots in prop::collection::vec((-50.0f32..50.0, -5.0f32..20.0, prop::bool::weighted(0.2)), 1..300),
        ) {
            let world = world_at(&spots);
            let bodies = &world.bodies[..];
            let order = SlotOrder::arranged(bodies);
            let n = bodies.len();
            prop_assert_eq!(order.bodies(), n);
            // Arranged again in the buffers of another world's order, the
            // same.
            let mut again = SlotOrder::arranged(&world_at(&spots[..n / 2]).bodies);
            again.arrange_along_rows(bodies);
            prop_assert_eq!(again.body_of(), order.body_of());
            prop_assert_eq!(again.slot_of(), order.slot_of());
            prop_assert_eq!(order.body_of()[n] as usize, n);
            for (slot, &body) in order.body_of().iter().enumerate() {
                prop_assert_eq!(order.slot_of()[body as usize] as usize, slot);
            }
            let moving = bodies.iter().filter(|b| b.is_awake_dynamic()).count();
            let (first, rest) = order.body_of()[..n].split_at(moving);
            prop_assert!(first.iter().all(|&b| bodies[b as usize].is_awake_dynamic()));
            prop_assert!(rest.windows(2).all(|w| w[0] < w[1]));
            // Row by row, each by `x`.
            let rows = Rows::over(bodies);
            let key = |b: u32| rows.key(bodies[b as usize].center);
            prop_assert!(first.windows(2).all(|w| key(w[0]) <= key(w[1])));
        }

        /// Sorting the contacts lists each once, with its bodies named by
        /// their slots, by the run of slots of its first slot.
        #[test]
        fn contacts_sorted_by_slot_are_each_listed_once_by_their_first_slot(
            spots in prop::collection::vec((-50.0f32..50.0, -5.0f32..20.0, prop::bool::weighted(0.2)), 2..300),
            pairs in prop::collection::vec((0usize..1000, 0usize..1000, 1usize..3), 0..500),
        ) {
            let world = world_at(&spots);
            let bodies = &world.bodies[..];
            let order = SlotOrder::arranged(bodies);
            let n = bodies.len();
            let ends: Vec<ContactEnds> = pairs
                .iter()
                .map(|&(a, b, points)| ContactEnds::new([(a % n) as u32, (b % n) as u32], points))
                .collect();
            let mut sorted = ContactsInOrder::default();
            let (ids, in_order) = order.sort_contacts(&ends, &mut sorted);
            let mut seen = vec![false; ends.len()];
            for (&id, renamed) in ids.iter().zip(in_order) {
                prop_assert!(!std::mem::replace(&mut seen[id as usize], true));
                let c = ends[id as usize];
                prop_assert_eq!(renamed.bodies(), c.bodies().map(|b| order.slot_of()[b as usize]));
                prop_assert_eq!(renamed.has_two_points(), c.has_two_points());
            }
            prop_assert!(seen.iter().all(|&s| s));
            let run = |c: &ContactEnds| c.bodies()[0].min(c.bodies()[1]) / SLOTS_PER_RUN;
            prop_assert!(in_order.windows(2).all(|w| run(&w[0]) <= run(&w[1])));
        }
    }
}

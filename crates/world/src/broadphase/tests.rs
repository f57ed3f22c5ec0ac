use carom_shapes::{Circle, Segment, Stadium};
use glam::Vec2;
use proptest::prelude::*;

use super::band::Band;
use super::index::{Slot, BOXES_SHARED_MIN, NEAR_SHARED_MIN};
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
            let may_collide = colliders[a].body != colliders[b].body && (dynamic(a) || dynamic(b));
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
            let def = BodyDef::dynamic().position(10.0 * (k % 20) as f32, 10.0 * (k / 20) as f32);
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
pub(super) fn scattered_world(seeds: &[(f32, f32, f32, f32, u8)]) -> World {
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
                let shape = Stadium::new(Vec2::new(-0.3, 0.0), Vec2::new(0.3, 0.0), 0.2).unwrap();
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

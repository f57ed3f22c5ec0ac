use proptest::prelude::*;

use super::{merge_sorted, Contact, ContactEnds, PointImpulse, WarmStart};
use crate::scene::Scene;
use crate::threading::Threading;

proptest! {
    /// Merging gives the sorted union, each contact with its own ends.
    #[test]
    fn merging_sorted_contacts_gives_the_sorted_union(
        keys in proptest::collection::btree_set((0u32..60, 0u32..60), 0..80),
        picks in proptest::collection::vec(any::<bool>(), 80),
    ) {
        let with_ends = |&(a, b): &(u32, u32)| {
            let contact = Contact { shape_a: a, shape_b: b, ..Contact::NONE };
            (contact, ContactEnds::new([a + 100, b + 100], 1))
        };
        let all: Vec<_> = keys.iter().map(with_ends).collect();
        let (extra, kept): (Vec<_>, Vec<_>) =
            all.iter().zip(&picks).partition(|(_, &pick)| pick);
        let extra: Vec<_> = extra.into_iter().map(|(c, _)| *c).collect();
        let mut list: Vec<_> = kept.iter().map(|((c, _), _)| *c).collect();
        let mut ends: Vec<_> = kept.iter().map(|((_, e), _)| *e).collect();
        merge_sorted(&mut list, &mut ends, &extra);
        prop_assert_eq!(list.len(), all.len());
        for ((c, e), (want_c, want_e)) in list.iter().zip(&ends).zip(&all) {
            prop_assert_eq!(c.key(), want_c.key());
            prop_assert_eq!(*e, *want_e);
        }
    }
}

/// Asserts that two contact lists hold the same pairs, manifolds and
/// impulses, in the same order.
fn assert_same_contacts(a: &[super::Contact], b: &[super::Contact], step: usize) {
    assert_eq!(a.len(), b.len(), "step {step}");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.key(), y.key(), "step {step}");
        assert_eq!(x.manifold, y.manifold, "step {step}");
        assert_eq!(x.impulses, y.impulses, "step {step}");
    }
}

/// Asserts that the world's contact ends list each contact's bodies
/// (its shapes' owners) and point count, in contact order.
fn assert_ends_follow(world: &crate::World, step: usize) {
    let (set, colliders) = (&world.contacts, &world.colliders);
    assert_eq!(set.ends().len(), set.as_slice().len(), "step {step}");
    for (ends, c) in set.ends().iter().zip(set.as_slice()) {
        let shape_bodies = [c.shape_a, c.shape_b].map(|s| colliders[s as usize].body);
        assert_eq!(ends.bodies(), shape_bodies, "step {step}");
        assert_eq!(ends.has_two_points(), c.manifold.count == 2, "step {step}");
    }
}

/// Steps `calling` on the calling thread and `shared` in `pool`, and
/// checks that they made the same contacts, each with its ends.
fn step_and_compare(
    calling: &mut crate::World,
    shared: &mut crate::World,
    pool: &rayon::ThreadPool,
    step: usize,
) {
    calling.step_with(Threading::Calling);
    pool.install(|| shared.step_with(Threading::Pool));
    let (a, b) = (calling.contacts.as_slice(), shared.contacts.as_slice());
    assert_same_contacts(a, b, step);
    assert_ends_follow(calling, step);
    assert_ends_follow(shared, step);
}

#[test]
fn a_warm_start_finds_each_points_impulse_by_its_feature() {
    use carom_narrowphase::FeatureId;
    let (first, second, other) = (FeatureId::new(1, 0), FeatureId::new(0, 2), FeatureId(0));
    let impulses = [
        PointImpulse {
            normal: 2.0,
            tangent: 0.5,
        },
        PointImpulse {
            normal: 9.0,
            tangent: -1.0,
        },
    ];
    let mut contact = Contact {
        shape_a: 3,
        shape_b: 7,
        impulses,
        ..Contact::NONE
    };
    contact.manifold.points[0].id = first;
    contact.manifold.points[1].id = other;
    // One point: its own impulse, and nothing for the unused slot's id.
    contact.manifold.count = 1;
    let warm = WarmStart::of(&contact);
    assert_eq!(warm.key(), contact.key());
    assert_eq!(warm.impulse_of(first), Some(impulses[0]));
    assert_eq!(warm.impulse_of(other), None);
    // Two points: each its own.
    contact.manifold.points[1].id = second;
    contact.manifold.count = 2;
    let warm = WarmStart::of(&contact);
    assert_eq!(warm.impulse_of(first), Some(impulses[0]));
    assert_eq!(warm.impulse_of(second), Some(impulses[1]));
    assert_eq!(warm.impulse_of(other), None);
}

#[test]
fn contacts_made_on_the_calling_thread_match_those_shared_out() {
    // Two copies of a landing pile, one making its contacts on the
    // calling thread (one chunk after another, written end to end over
    // last step's, which it reads for their impulses as it goes), the
    // other stepped in a pool of four threads, sharing the chunks out
    // (the first ones made in place one after the other, reading the
    // first third of last step's contacts where they lie; the others
    // from a copy of the rest, each into its own slots, its run moved
    // down as soon as the runs before it are in place, by whichever
    // thread gets there, or straight where its run goes when those runs
    // already are): same contacts, same impulses, step after step.
    // Halfway, a block of touching circles is dropped in, so that the
    // pairs outgrow the list's room.
    use crate::body::{BodyDef, Material};
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let mut calling = Scene::circle_pile(3_000).build_world().unwrap();
    let mut shared = Scene::circle_pile(3_000).build_world().unwrap();
    let (mut compared, mut pushing) = (0, 0);
    for step in 0..120 {
        if step == 90 {
            for world in [&mut calling, &mut shared] {
                for k in 0..2_000 {
                    let (x, y) = ((k % 100) as f32 * 0.499, (k / 100) as f32 * 0.499);
                    let def = BodyDef::dynamic().position(x - 29.0, y + 22.0);
                    let ball = world.create_body(def).unwrap();
                    let disc = carom_shapes::Circle::new(glam::Vec2::ZERO, 0.25).unwrap();
                    world.add_shape(ball, disc, Material::default()).unwrap();
                }
            }
        }
        step_and_compare(&mut calling, &mut shared, &pool, step);
        compared += calling.contacts.len();
        let contacts = calling.contacts.as_slice().iter();
        pushing += contacts.filter(|c| c.impulses[0].normal > 0.0).count();
    }
    assert!(compared > 10_000, "only {compared} contacts compared");
    // Enough of them carry an impulse into the next step for a missed
    // warm start to show.
    assert!(pushing > 10_000, "only {pushing} contacts pushing");
    // The calling thread read last step's contacts in place, spilling
    // some before writing over them as the pile's contacts grew, and
    // copied them all when the list moved to a larger buffer.
    let [one_by_one, moves] = calling.contacts.spill_counts;
    assert!(
        one_by_one > 0 && moves > 0,
        "spills {one_by_one}, moves {moves}"
    );
    // Shared, the first chunks were made in place and the rest from a
    // copy, and every contact was copied when the list moved.
    let [in_place, from_copy, all_copied, both_ways] = shared.contacts.shared_counts;
    assert!(
        in_place > 0 && from_copy > 0 && all_copied > 0 && both_ways > 0,
        "in place {in_place}, from the copy {from_copy}, all copied {all_copied}, \
         both in one update {both_ways}"
    );
}

#[test]
fn frozen_contacts_come_back_in_place_the_same_on_the_calling_thread_and_shared() {
    // Two copies of a pile that falls asleep while a ball far off keeps
    // falling, so steps go on: one makes its contacts on the calling
    // thread, the other shares the chunks out in a pool of four. The
    // contacts among sleeping bodies are put back by the chunks where
    // their pairs come, or merged in after when the broadphase no
    // longer reports their pairs (as once the speculative distance
    // shrinks, for those of them with a gap); either way both lists
    // are the same, step after step, and both ways are taken.
    use crate::body::{BodyDef, Material};
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let pile = || {
        let mut world = Scene::circle_pile(400).build_world().unwrap();
        let ball = world
            .create_body(BodyDef::dynamic().position(1.0e4, 0.0))
            .unwrap();
        let disc = carom_shapes::Circle::new(glam::Vec2::ZERO, 0.5).unwrap();
        world.add_shape(ball, disc, Material::default()).unwrap();
        world
    };
    let (mut calling, mut shared) = (pile(), pile());
    let mut slept = false;
    for step in 0..900 {
        if step == 600 {
            for world in [&mut calling, &mut shared] {
                let mut settings = *world.settings();
                settings.speculative_distance = 0.002;
                world.set_settings(settings).unwrap();
            }
        }
        step_and_compare(&mut calling, &mut shared, &pool, step);
        // Each pair once, in order, and every contact kept aside is back.
        let keys: Vec<u64> = calling
            .contacts
            .as_slice()
            .iter()
            .map(Contact::key)
            .collect();
        assert!(keys.windows(2).all(|k| k[0] < k[1]), "step {step}");
        for (c, _) in &calling.contacts.frozen {
            assert!(
                calling.contacts.contains_pair(c.shape_a, c.shape_b),
                "step {step}"
            );
        }
        slept |= calling.stats().sleeping_bodies > 0;
    }
    assert!(slept, "the pile never slept");
    for world in [&calling, &shared] {
        let [put_back, merged] = world.contacts.frozen_counts;
        assert!(
            put_back > 0 && merged > 0,
            "put back {put_back}, merged {merged}"
        );
    }
    // Shared, some updates made chunks in place and from the copy both,
    // so frozen contacts came back through both kinds of chunk.
    let [.., both_ways] = shared.contacts.shared_counts;
    assert!(both_ways > 0, "no update made chunks both ways");
}

#[test]
fn the_world_counts_its_stadiums_as_shapes_come_and_go() {
    // The count only chooses how pairs are computed (the contacts are
    // the same either way, see below), but it must not drift.
    use crate::body::{BodyDef, Material};
    use crate::settings::WorldSettings;
    use crate::world::World;
    use carom_shapes::{Circle, Stadium};
    use glam::Vec2;
    let mut world = World::new(WorldSettings::default()).unwrap();
    let stadium = || Stadium::new(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.2).unwrap();
    let log = world.create_body(BodyDef::dynamic()).unwrap();
    world
        .add_shape(log, stadium(), Material::default())
        .unwrap();
    world
        .add_shape(log, stadium(), Material::default())
        .unwrap();
    let ball = world
        .create_body(BodyDef::dynamic().position(3.0, 0.0))
        .unwrap();
    let circle = Circle::new(Vec2::ZERO, 0.3).unwrap();
    world.add_shape(ball, circle, Material::default()).unwrap();
    assert_eq!(world.stadiums, 2);
    world.remove_body(ball).unwrap();
    assert_eq!(world.stadiums, 2);
    world.remove_body(log).unwrap();
    assert_eq!(world.stadiums, 0);
}

#[test]
fn capsule_contacts_come_out_the_same_batched_or_one_at_a_time() {
    // The capsules scene twice: one world computes its rounded-segment
    // pairs eight at a time, the other (told it has no stadiums) one at
    // a time. Same contacts and impulses, step after step, through the
    // landing and the settling.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/capsules.ron");
    let scene = Scene::load(path).unwrap();
    let mut batched = scene.build_world().unwrap();
    let mut single = scene.build_world().unwrap();
    assert!(batched.stadiums > 0);
    single.stadiums = 0;
    let mut two_point = 0;
    for step in 0..240 {
        batched.step_with(Threading::Calling);
        single.step_with(Threading::Calling);
        let (a, b) = (batched.contacts.as_slice(), single.contacts.as_slice());
        assert_same_contacts(a, b, step);
        assert_ends_follow(&batched, step);
        two_point += a.iter().filter(|c| c.manifold.count == 2).count();
    }
    assert!(two_point > 10_000, "only {two_point} two-point contacts");
}

#[test]
fn the_contact_list_holds_each_pair_with_points_once_in_pair_order() {
    // A landing pile: many near pairs have no reachable point, and the
    // pairs with points are spread over every chunk of pairs.
    let mut world = Scene::circle_pile(3_000).build_world().unwrap();
    let mut left_out = 0;
    for _ in 0..90 {
        world.step();
        let contacts = world.contacts.as_slice();
        assert!(contacts.iter().all(|c| !c.manifold.is_empty()));
        assert!(contacts.windows(2).all(|w| w[0].key() < w[1].key()));
        let stats = world.stats();
        assert_eq!(stats.manifolds, contacts.len());
        left_out += stats.pairs - stats.manifolds;
    }
    assert!(left_out > 0, "no pair was left without a point");
}

#[test]
fn contacts_kept_aside_are_searched_again_only_when_the_bodies_change() {
    // A pile and a lone ball on a floor of its own fall asleep while a
    // ball far off keeps falling, so steps go on, and their frozen
    // contacts are then kept from step to step. Waking the lone ball by
    // hand, and then a ball landing on the pile, which wakes it, each
    // make them be searched for again while other bodies sleep.
    // (Wherever they are kept, a debug build checks them against a
    // fresh search.)
    use crate::body::{BodyDef, Material};
    let mut world = Scene::circle_pile(400).build_world().unwrap();
    let disc = carom_shapes::Circle::new(glam::Vec2::ZERO, 0.25).unwrap();
    let floor = world
        .create_body(BodyDef::fixed().position(500.0, 0.0))
        .unwrap();
    let plank =
        carom_shapes::Segment::new(glam::Vec2::new(-2.0, 0.0), glam::Vec2::new(2.0, 0.0)).unwrap();
    world.add_shape(floor, plank, Material::default()).unwrap();
    let lone = world
        .create_body(BodyDef::dynamic().position(500.0, 0.25))
        .unwrap();
    world.add_shape(lone, disc, Material::default()).unwrap();
    // Every body but the box's walls and the floor.
    let circles = world.body_count() - 2;
    let far = world
        .create_body(BodyDef::dynamic().position(1.0e4, 0.0))
        .unwrap();
    world.add_shape(far, disc, Material::default()).unwrap();
    let sleep = |world: &mut crate::World| {
        for _ in 0..3_000 {
            if world.stats().sleeping_bodies == circles {
                break;
            }
            world.step();
        }
        assert_eq!(
            world.stats().sleeping_bodies,
            circles,
            "the pile never slept"
        );
        let mut kept_steps = 0;
        for _ in 0..10 {
            kept_steps += usize::from(world.contacts.frozen_current);
            world.step();
        }
        assert!(
            kept_steps >= 9,
            "frozen contacts kept in {kept_steps} of 10 steps"
        );
    };
    sleep(&mut world);
    world.wake_body(lone).unwrap();
    for _ in 0..3 {
        world.step();
        assert_eq!(world.stats().sleeping_bodies, circles - 1);
    }
    sleep(&mut world);
    let ball = world
        .create_body(BodyDef::dynamic().position(0.0, 25.0))
        .unwrap();
    world.add_shape(ball, disc, Material::default()).unwrap();
    let mut woke = false;
    for _ in 0..600 {
        world.step();
        if world.stats().sleeping_bodies < circles {
            woke = true;
            assert!(!world.contacts.frozen_current);
            break;
        }
    }
    assert!(woke, "the ball never woke the pile");
    for _ in 0..30 {
        world.step();
    }
}

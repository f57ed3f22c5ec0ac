//! Sleeping: bodies at rest leave the step until something disturbs them.
//!
//! Every awake dynamic body counts how long it has moved slower than the
//! sleep speeds (`sleep_time`). Bodies joined by touching contacts form an
//! *island*; an island may only sleep as a whole, because a body at rest on
//! a moving one is not really at rest. When the slowest-settling body of an
//! island has been at rest for `time_to_sleep`, every body of the island
//! sleeps: its velocity is zeroed, the solver skips it, and the contacts
//! among sleeping bodies are kept frozen (impulses included, for a smooth
//! wake-up) instead of being recomputed.
//!
//! An island wakes as a whole when a moving body (an awake dynamic body or
//! a kinematic body with a velocity) gets a contact with one of its bodies,
//! or when the program changes one of its bodies. A body touching a moving
//! kinematic body never sleeps, so a conveyor keeps carrying its load.
//!
//! Islands are found by union-find over the touching contacts. Joining two
//! trees makes the lower root the parent, so every tree's root is its
//! lowest body, whatever order the contacts are joined in: on two threads
//! each joins half of the contacts into a forest of its own, and the
//! second forest is then joined into the first. The islands, and the
//! step's result, are the same on any number of threads.

use crate::body::{Body, BodyKind, AWAKE};
use crate::buffer::resize_to_overwrite;
use crate::contacts::{Contact, ContactEnds, ContactSet};
use crate::settings::WorldSettings;
use crate::threading::{share_each, HelperBoard};

/// Contacts below which the island search runs on the calling thread
/// alone, even with another thread waiting to help: joining its forest
/// into the first costs a pass over the bodies.
const SHARED_SEARCH_MIN: usize = 8_192;

/// How a step advances the bodies' sleep timers: the solver advances each
/// body's as it stores the body's motion, while the body is in cache, and
/// notes there how the body takes part in the search for islands (see
/// [`Readiness`]), so that the search need not read the bodies again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SleepTimer {
    max_linear_sq: f32,
    max_angular: f32,
    dt: f32,
    time_to_sleep: f32,
}

impl SleepTimer {
    /// The timer of `settings`, if bodies may sleep.
    pub fn of(settings: &WorldSettings) -> Option<SleepTimer> {
        settings.sleep.then_some(SleepTimer {
            max_linear_sq: settings.sleep_linear_speed * settings.sleep_linear_speed,
            max_angular: settings.sleep_angular_speed,
            dt: settings.dt,
            time_to_sleep: settings.time_to_sleep,
        })
    }

    /// Adds the step to the sleep time of an awake dynamic body slower than
    /// the sleep speeds, and resets it for a faster one; returns how the
    /// body then takes part in the search for islands.
    #[inline]
    pub fn advance(&self, body: &mut Body) -> Readiness {
        if body.is_awake_dynamic() {
            let at_rest = body.linear_velocity.length_squared() <= self.max_linear_sq
                && body.angular_velocity.abs() <= self.max_angular;
            body.sleep_time = if at_rest {
                body.sleep_time + self.dt
            } else {
                0.0
            };
        }
        Readiness::of(body, self.time_to_sleep)
    }
}

/// The sleeping islands, and scratch space for finding new ones.
#[derive(Debug, Default)]
pub(crate) struct Islands {
    /// Bodies of each sleeping island; an empty list is a free slot.
    members: Vec<Vec<u32>>,
    /// Free slots of `members`, reused last-freed first.
    free: Vec<u32>,
    /// The bodies ready to sleep joined by touching contacts.
    forest: Forest,
    /// The forest the other thread joins the second half of the contacts
    /// into, when the search is shared.
    second: Forest,
    /// Per union-find root: the island slot it was given this step.
    slot_of_root: Vec<u32>,
    /// Per body: how it takes part in this step's search, noted by the
    /// solver as it stored the body (see [`Islands::readiness_slots`]).
    /// The pass over the contacts then reads a byte per body instead of
    /// two bodies at random.
    readiness: Vec<Readiness>,
}

/// How a body takes part in finding islands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Readiness {
    /// Not an awake dynamic body, nor a moving kinematic one: it joins no
    /// island.
    Out,
    /// Awake and dynamic, but not at rest long enough to sleep.
    Moving,
    /// Awake, dynamic and at rest for `time_to_sleep`.
    Ready,
    /// A kinematic body with a velocity: it joins no island, and a body it
    /// touches is carried, not at rest.
    Carrier,
}

impl Readiness {
    /// How `body` takes part, `time_to_sleep` being the settings'.
    pub fn of(body: &Body, time_to_sleep: f32) -> Readiness {
        match body.kind {
            BodyKind::Kinematic if body.is_moving() => Readiness::Carrier,
            _ if !body.is_awake_dynamic() => Readiness::Out,
            _ if body.sleep_time >= time_to_sleep => Readiness::Ready,
            _ => Readiness::Moving,
        }
    }

    /// Which kinds of readiness `notes` holds, one bit each (`1 << kind`):
    /// a pass of bitwise ORs, which the compiler vectorises.
    fn kinds_in(notes: &[Readiness]) -> u8 {
        notes.iter().fold(0, |kinds, &r| kinds | 1 << r as u8)
    }

    /// Whether `kinds` (from [`Readiness::kinds_in`]) holds `self`.
    fn is_in(self, kinds: u8) -> bool {
        kinds & 1 << self as u8 != 0
    }
}

/// A union-find forest over body indices, with the bodies it must keep
/// awake.
#[derive(Debug, Default)]
struct Forest {
    /// Each body's parent; a root is its own.
    parent: Vec<u32>,
    /// Per body, and after [`Islands::find_islands`] per root: whether it
    /// touches an awake body that is not ready, which keeps its whole
    /// island awake.
    held_awake: Vec<bool>,
}

impl Forest {
    /// Every one of `bodies` a tree of its own, none held awake.
    fn reset(&mut self, bodies: usize) {
        self.parent.clear();
        self.parent.extend(0..bodies as u32);
        self.held_awake.clear();
        self.held_awake.resize(bodies, false);
    }

    /// Joins the ready bodies of each touching contact of `contacts` (with
    /// their `ends`), and holds awake a ready body touching a moving one.
    /// Contacts with no ready body are passed over without reading their
    /// points.
    fn join_touching(
        &mut self,
        (contacts, ends): (&[Contact], &[ContactEnds]),
        readiness: &[Readiness],
        settings: &WorldSettings,
    ) {
        for (c, ends) in contacts.iter().zip(ends) {
            use Readiness::{Moving, Ready};
            let [a, b] = ends.bodies();
            match (readiness[a as usize], readiness[b as usize]) {
                (Ready, Ready) if is_touching(c, settings) => self.union(a, b),
                (Ready, Moving) if is_touching(c, settings) => self.held_awake[a as usize] = true,
                (Moving, Ready) if is_touching(c, settings) => self.held_awake[b as usize] = true,
                _ => {}
            }
        }
    }

    /// Joins in the trees and flags of `other`, a forest over the same
    /// bodies: joining each body to its parent there joins all it joined.
    fn absorb(&mut self, other: &Forest) {
        for (i, &p) in other.parent.iter().enumerate() {
            if p != i as u32 {
                self.union(i as u32, p);
            }
        }
        for (held, &other) in self.held_awake.iter_mut().zip(&other.held_awake) {
            *held |= other;
        }
    }

    /// Joins two trees; the lower root becomes the parent, so every root is
    /// its tree's lowest body.
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (find(&mut self.parent, a), find(&mut self.parent, b));
        if ra != rb {
            let (low, high) = (ra.min(rb), ra.max(rb));
            self.parent[high as usize] = low;
        }
    }
}

impl Islands {
    /// Whether any body sleeps.
    pub fn any_sleeping(&self) -> bool {
        self.free.len() < self.members.len()
    }

    /// Bodies asleep.
    pub fn sleeping_bodies(&self) -> usize {
        self.members.iter().map(Vec::len).sum()
    }

    /// Slots for the solver to note, as it stores each of `bodies` bodies,
    /// how the body takes part in this step's search (see
    /// [`SleepTimer::advance`]); every slot must be written before
    /// [`Islands::fall_asleep`].
    pub fn readiness_slots(&mut self, bodies: usize) -> &mut [Readiness] {
        resize_to_overwrite(&mut self.readiness, bodies, Readiness::Out);
        &mut self.readiness
    }

    /// Puts every island that has been at rest long enough to sleep;
    /// returns whether any did. `contacts` are this step's. The solver
    /// advanced the sleep timers of the bodies it stored and noted their
    /// readiness, except for those fast enough to be swept, `swept`, which
    /// continuous collision may have moved back since: theirs are done
    /// here. With a `helper` board and enough contacts, the search for
    /// islands is shared with its thread.
    pub fn fall_asleep(
        &mut self,
        bodies: &mut [Body],
        contacts: &ContactSet,
        settings: &WorldSettings,
        swept: impl Iterator<Item = usize>,
        helper: Option<&HelperBoard>,
    ) -> bool {
        let Some(timer) = SleepTimer::of(settings) else {
            return false;
        };
        assert_eq!(self.readiness.len(), bodies.len(), "one note per body");
        for i in swept {
            self.readiness[i] = timer.advance(&mut bodies[i]);
        }
        let kinds = Readiness::kinds_in(&self.readiness);
        if Readiness::Carrier.is_in(kinds) {
            keep_awake_on_moving_kinematics(bodies, contacts, settings, &mut self.readiness);
        }
        if !Readiness::Ready.is_in(kinds) {
            return false;
        }
        let helper = helper.filter(|_| contacts.len() >= SHARED_SEARCH_MIN);
        self.find_islands(contacts, settings, helper) && self.sleep_settled_islands(bodies)
    }

    /// Wakes the island of body `index`, if it sleeps.
    pub fn wake_body(&mut self, bodies: &mut [Body], index: usize) {
        let island = bodies[index].island;
        if island != AWAKE {
            self.wake_island(bodies, island);
        }
    }

    /// Wakes every island.
    pub fn wake_all(&mut self, bodies: &mut [Body]) {
        for island in 0..self.members.len() as u32 {
            if !self.members[island as usize].is_empty() {
                self.wake_island(bodies, island);
            }
        }
    }

    fn wake_island(&mut self, bodies: &mut [Body], island: u32) {
        for &b in &self.members[island as usize] {
            let body = &mut bodies[b as usize];
            body.island = AWAKE;
            body.sleep_time = 0.0;
        }
        self.members[island as usize].clear();
        self.free.push(island);
    }

    /// Finds the islands that may sleep, from the bodies' readiness noted
    /// this step; returns whether any may. An island sleeps only if every
    /// body in it is ready, so it is a set of ready bodies joined by
    /// touching contacts that touches no moving awake body: union-find
    /// runs over the contacts between ready bodies only, and a contact
    /// between a ready and a moving body holds the ready one's tree awake.
    /// With a `helper` board, each half of the contacts is joined on its
    /// own thread into a forest of its own, and the second forest then into
    /// the first: the same trees and roots (see the module notes).
    fn find_islands(
        &mut self,
        contacts: &ContactSet,
        settings: &WorldSettings,
        helper: Option<&HelperBoard>,
    ) -> bool {
        let n = self.readiness.len();
        self.forest.reset(n);
        let (readiness, lists) = (&self.readiness[..], contacts.lists());
        match helper {
            Some(board) => {
                self.second.reset(n);
                let mid = lists.0.len() / 2;
                let half =
                    |range: std::ops::Range<usize>| (&lists.0[range.clone()], &lists.1[range]);
                let halves = [
                    (&mut self.forest, half(0..mid)),
                    (&mut self.second, half(mid..lists.0.len())),
                ];
                let join = |(forest, half): (&mut Forest, _)| {
                    forest.join_touching(half, readiness, settings)
                };
                let failed = "a half of the island search failed on another thread";
                share_each(Some(board), halves, join, failed);
                self.forest.absorb(&self.second);
            }
            None => self.forest.join_touching(lists, readiness, settings),
        }
        // A body held awake holds its whole tree: carry the flags to the
        // roots.
        let forest = &mut self.forest;
        for (i, &r) in readiness.iter().enumerate() {
            if r == Readiness::Ready && forest.held_awake[i] {
                let root = find(&mut forest.parent, i as u32) as usize;
                forest.held_awake[root] = true;
            }
        }
        // Some island may sleep if some ready body is the root of a tree
        // that nothing holds awake.
        let roots = forest.parent.iter().zip(&forest.held_awake).enumerate();
        readiness
            .iter()
            .zip(roots)
            .any(|(&r, (i, (&parent, &held)))| r == Readiness::Ready && parent == i as u32 && !held)
    }

    /// Puts to sleep every island whose bodies are all ready and which no
    /// moving body holds awake; returns whether any fell asleep.
    fn sleep_settled_islands(&mut self, bodies: &mut [Body]) -> bool {
        let mut slept = false;
        self.slot_of_root.clear();
        self.slot_of_root.resize(bodies.len(), AWAKE);
        for (i, body) in bodies.iter_mut().enumerate() {
            if self.readiness[i] != Readiness::Ready {
                continue;
            }
            let root = find(&mut self.forest.parent, i as u32) as usize;
            if self.forest.held_awake[root] {
                continue;
            }
            if self.slot_of_root[root] == AWAKE {
                self.slot_of_root[root] = allocate_slot(&mut self.members, &mut self.free);
            }
            let slot = self.slot_of_root[root];
            self.members[slot as usize].push(i as u32);
            body.island = slot;
            body.linear_velocity = glam::Vec2::ZERO;
            body.angular_velocity = 0.0;
            slept = true;
        }
        slept
    }
}

/// A free island slot, reusing the last one freed.
fn allocate_slot(members: &mut Vec<Vec<u32>>, free: &mut Vec<u32>) -> u32 {
    free.pop().unwrap_or_else(|| {
        members.push(Vec::new());
        (members.len() - 1) as u32
    })
}

/// Root of `i`'s tree in the union-find forest `parent`, halving the path
/// on the way.
fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let grandparent = parent[parent[i as usize] as usize];
        parent[i as usize] = grandparent;
        i = grandparent;
    }
    i
}

/// A contact whose nearest point is within the speculative distance:
/// the bodies rest on each other rather than merely pass close by.
fn is_touching(contact: &Contact, settings: &WorldSettings) -> bool {
    contact
        .manifold
        .points()
        .iter()
        .any(|p| p.separation <= settings.speculative_distance)
}

/// A body touching a moving kinematic body is carried, not at rest.
/// Its timer starts over, and its `readiness` becomes moving.
fn keep_awake_on_moving_kinematics(
    bodies: &mut [Body],
    contacts: &ContactSet,
    settings: &WorldSettings,
    readiness: &mut [Readiness],
) {
    for (c, [a, b]) in contacts.with_bodies() {
        let (a, b) = (a as usize, b as usize);
        for (carrier, load) in [(a, b), (b, a)] {
            if readiness[carrier] == Readiness::Carrier
                && bodies[load].is_awake_dynamic()
                && is_touching(c, settings)
            {
                bodies[load].sleep_time = 0.0;
                readiness[load] = Readiness::Moving;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{find, Islands, Readiness};
    use crate::threading::HelperBoard;
    use crate::{BodyDef, World};

    #[test]
    fn a_body_fast_enough_to_be_swept_has_its_timer_reset_after_the_step() {
        // The solver advances the timers of the bodies it stores except
        // those fast enough to be swept, whose timers follow continuous
        // collision. Two discs in empty space, both with time at rest
        // behind them: a slow one keeps counting, a fast one (a step at 60
        // m/s covers more than its radius) starts over.
        let defs = [(0.0, 0.01), (10.0, 60.0)]
            .map(|(x, speed)| BodyDef::dynamic().position(x, 0.0).velocity(speed, 0.0));
        let mut world = World::weightless_discs(defs);
        for body in world.bodies.in_step() {
            body.sleep_time = 0.25;
        }
        world.step();
        let dt = world.settings().dt;
        assert_eq!(world.bodies.in_step()[0].sleep_time, 0.25 + dt);
        assert_eq!(world.bodies.in_step()[1].sleep_time, 0.0);
    }

    #[test]
    fn the_solver_notes_each_bodys_readiness_as_it_stores_it() {
        // Far apart, so that nothing touches: a disc at rest long enough to
        // sleep, a disc at rest for too short a time, a fast disc (its note
        // is made after continuous collision), a moving kinematic disc, a
        // kinematic disc at rest and a fixed one.
        let defs = [
            BodyDef::dynamic(),
            BodyDef::dynamic().position(10.0, 0.0),
            BodyDef::dynamic().position(20.0, 0.0).velocity(60.0, 0.0),
            BodyDef::kinematic().position(0.0, 10.0).velocity(0.0, 2.0),
            BodyDef::kinematic().position(10.0, 10.0),
            BodyDef::fixed().position(20.0, 10.0),
        ];
        let mut world = World::weightless_discs(defs);
        let ready_time = world.settings().time_to_sleep;
        for body in world.bodies.in_step() {
            body.sleep_time = ready_time;
        }
        world.bodies.in_step()[1].sleep_time = 0.0;
        world.step();
        use Readiness::{Carrier, Moving, Out, Ready};
        let noted = [Ready, Moving, Moving, Carrier, Out, Out];
        assert_eq!(world.islands.readiness, noted);
        // The ready disc, touching nothing, fell asleep on its own.
        assert!(world.bodies[0].is_sleeping());
        assert!(!world.bodies[1].is_sleeping() && !world.bodies[2].is_sleeping());
    }

    #[test]
    fn no_island_may_sleep_while_each_ready_body_touches_a_moving_one() {
        // A row of touching discs, all at rest long enough but one.
        let mut world =
            World::weightless_discs((0..5).map(|k| BodyDef::dynamic().position(k as f32, 0.0)));
        world.step();
        let ready_time = world.settings().time_to_sleep;
        let notes = world
            .bodies
            .in_step()
            .iter_mut()
            .enumerate()
            .map(|(i, body)| {
                body.sleep_time = if i == 2 { 0.0 } else { ready_time };
                Readiness::of(body, ready_time)
            });
        let mut islands = Islands::default();
        islands.readiness.extend(notes);
        let settings = world.settings();
        assert!(!islands.find_islands(&world.contacts, settings, None));
        // Once the middle disc is ready too, the row may sleep.
        islands.readiness[2] = Readiness::Ready;
        assert!(islands.find_islands(&world.contacts, settings, None));
    }

    #[test]
    fn islands_found_with_a_helper_are_those_found_alone() {
        // Three rows of 30 touching discs in empty space, after one step
        // has made their contacts. The middle row is all at rest long
        // enough, and its contacts straddle the two halves a helper's
        // search splits the list into; the first and last rows each hold
        // one moving disc, which keeps the rest of its row awake.
        let rows = (0..3).flat_map(|row| (0..30).map(move |k| (k as f32, 3.0 * row as f32)));
        let mut world =
            World::weightless_discs(rows.map(|(x, y)| BodyDef::dynamic().position(x, y)));
        world.step();
        let moving = [10, 89];
        let ready_time = world.settings().time_to_sleep;
        for (i, body) in world.bodies.in_step().iter_mut().enumerate() {
            body.sleep_time = if moving.contains(&i) { 0.0 } else { ready_time };
        }
        let (bodies, contacts, settings) = (&world.bodies[..], &world.contacts, world.settings());
        assert_eq!(contacts.len(), 3 * 29, "every neighbour touches");
        // Per body: its readiness, its tree's root and whether that is held.
        let islands_of = |helper: Option<&HelperBoard>| {
            let mut islands = Islands::default();
            let notes = bodies
                .iter()
                .map(|b| Readiness::of(b, settings.time_to_sleep));
            islands.readiness.extend(notes);
            let may_sleep = islands.find_islands(contacts, settings, helper);
            assert!(may_sleep, "the middle row may sleep");
            let forest = &mut islands.forest;
            (0..bodies.len() as u32)
                .map(|i| {
                    let root = find(&mut forest.parent, i);
                    let held = forest.held_awake[root as usize];
                    (islands.readiness[i as usize], root, held)
                })
                .collect::<Vec<_>>()
        };
        let alone = islands_of(None);
        let board = HelperBoard::default();
        let shared = std::thread::scope(|scope| {
            let _close = board.closer();
            scope.spawn(|| board.help());
            islands_of(Some(&board))
        });
        assert_eq!(shared, alone);
        for (i, &(readiness, root, held)) in alone.iter().enumerate() {
            let row_start = 30 * (i / 30) as u32;
            if moving.contains(&i) {
                assert_eq!(readiness, Readiness::Moving, "body {i}");
                continue;
            }
            // Only ready bodies are joined, so the moving disc cuts its
            // row's tree in two; its neighbours hold both parts awake.
            let lowest = if i > moving[0] && i < 30 {
                11
            } else {
                row_start
            };
            assert_eq!(readiness, Readiness::Ready, "body {i}");
            assert_eq!(root, lowest, "body {i}: a tree's root is its lowest body");
            assert_eq!(
                held,
                row_start != 30,
                "body {i}: only the middle row may sleep"
            );
        }
    }
}

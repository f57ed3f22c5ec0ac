//! The world: bodies and shapes named by handles, the step that runs the
//! phases (broadphase, narrowphase, solver, continuous collision, sleep)
//! in order, and the views an embedder reads between steps.

use carom_narrowphase::ContactManifold;
use carom_shapes::{Aabb, Rot, Shape, Transform};
use glam::Vec2;
use slotmap::{SlotMap, SparseSecondaryMap};

use crate::body::{Bodies, Body, BodyDef, BodyHandle, BodyKind, Material, ShapeHandle};
use crate::broadphase::BroadPhase;
use crate::buffer::{reserve_filled_soon, Room, SharedScratch};
use crate::ccd::Continuous;
use crate::collider::{shape_list, Collider, StepCollider, NO_SHAPE};
use crate::contacts::{ContactInputs, ContactSet, UpdateOn, WarmStart};
use crate::error::{check_finite, WorldError};
use crate::settings::WorldSettings;
use crate::sleep::Islands;
use crate::solver::Solver;
use crate::threading::{with_helper, HelperBoard, Sharing, Threading};

/// A 2D physics world: bodies, their shapes, and the fixed-step solver
/// that moves them.
///
/// Bodies and shapes are named by generational handles ([`BodyHandle`],
/// [`ShapeHandle`]); a handle whose body or shape was removed is reported as
/// [`WorldError::StaleBody`] / [`WorldError::StaleShape`], never reused.
/// Inside a step the world works on dense arrays in creation order (a body's
/// *index*), which is also the order of every output.
pub struct World {
    settings: WorldSettings,
    body_slots: SlotMap<BodyHandle, u32>,
    shape_slots: SlotMap<ShapeHandle, u32>,
    pub(crate) bodies: Bodies,
    /// The names given at creation, kept apart: most bodies have none.
    names: SparseSecondaryMap<BodyHandle, String>,
    pub(crate) colliders: Vec<Collider>,
    pub(crate) broadphase: BroadPhase,
    pub(crate) contacts: ContactSet,
    pub(crate) solver: Solver,
    /// Lent to the broadphase and narrowphase for the shapes' views and
    /// last step's impulses, then to the solver for its constraint batches.
    scratch: SharedScratch,
    pub(crate) islands: Islands,
    continuous: Continuous,
    steps: u64,
    accumulator: f32,
    /// Bumped whenever a static shape is added, removed or moved, so the
    /// broadphase knows to rebuild its static tree.
    pub(crate) static_version: u64,
    /// Stadium shapes in the world. With none, no pair of rounded segments
    /// can touch, and the narrowphase takes every pair as it comes.
    pub(crate) stadiums: usize,
    stats: StepStats,
}

/// Figures from the last step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepStats {
    /// Candidate shape pairs the broadphase found.
    pub pairs: usize,
    /// Pairs with at least one contact point.
    pub manifolds: usize,
    /// Contact points (speculative ones included).
    pub contact_points: usize,
    /// Colours of the constraint graph (sets of constraints that share no
    /// body, solved eight at a time): the most any region of the graph
    /// used. A large step's graph is coloured in regions of nearby
    /// contacts, one after the other.
    pub colors: usize,
    /// Bodies moved back by continuous collision.
    pub ccd_hits: usize,
    /// Bodies asleep after the step.
    pub sleeping_bodies: usize,
    /// Where the step's time went.
    pub timings: StepTimings,
}

/// Wall-clock seconds spent in each phase of the last step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimings {
    /// Finding candidate pairs.
    pub broadphase: f64,
    /// Computing manifolds and matching them for warm starting.
    pub narrowphase: f64,
    /// Colouring, preparing and solving constraints, integrating.
    pub solver: f64,
    /// Continuous collision and refreshing bounds.
    pub finish: f64,
}

impl StepTimings {
    /// The whole step.
    pub fn total(&self) -> f64 {
        self.broadphase + self.narrowphase + self.solver + self.finish
    }
}

/// Measures consecutive phases of a step.
struct PhaseClock(std::time::Instant);

impl PhaseClock {
    fn start() -> PhaseClock {
        PhaseClock(std::time::Instant::now())
    }

    /// Seconds since the last lap (or the start).
    fn lap(&mut self) -> f64 {
        let now = std::time::Instant::now();
        let seconds = now.duration_since(self.0).as_secs_f64();
        self.0 = now;
        seconds
    }
}

/// What [`World::advance`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Advance {
    /// Fixed steps run.
    pub steps: u32,
    /// How far the leftover time reaches into the next step, in [0, 1): draw
    /// each body at `lerp(previous pose, current pose, alpha)` for smooth motion.
    pub alpha: f32,
    /// Whether time was dropped because more than
    /// [`WorldSettings::max_steps_per_advance`] steps were due.
    pub dropped_time: bool,
}

/// The most bodies a world holds: a body's index fits in 31 bits, which
/// leaves the solver a bit to pack beside it.
pub const MAX_BODIES: usize = (1 << 31) - 1;

/// The index a new body takes in a world of `bodies` bodies, if there is
/// room for it.
fn next_body_index(bodies: usize) -> Result<u32, WorldError> {
    if bodies < MAX_BODIES {
        Ok(bodies as u32)
    } else {
        Err(WorldError::invalid(
            "bodies",
            format!("are full: a world holds at most {MAX_BODIES}"),
        ))
    }
}

impl World {
    /// An empty world.
    pub fn new(settings: WorldSettings) -> Result<World, WorldError> {
        settings.validate()?;
        Ok(World {
            settings,
            body_slots: SlotMap::with_key(),
            shape_slots: SlotMap::with_key(),
            bodies: Bodies::default(),
            names: SparseSecondaryMap::new(),
            colliders: Vec::new(),
            broadphase: BroadPhase::default(),
            contacts: ContactSet::default(),
            solver: Solver::default(),
            scratch: SharedScratch::default(),
            steps: 0,
            accumulator: 0.0,
            islands: Islands::default(),
            continuous: Continuous::default(),
            static_version: 0,
            stadiums: 0,
            stats: StepStats::default(),
        })
    }

    /// The settings in force.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Replaces the settings (validated first).
    pub fn set_settings(&mut self, settings: WorldSettings) -> Result<(), WorldError> {
        settings.validate()?;
        // Sleeping bodies would not feel new gravity, so they wake.
        if !settings.sleep || settings.gravity != self.settings.gravity {
            self.islands.wake_all(&mut self.bodies);
        }
        self.settings = settings;
        Ok(())
    }

    /// Makes room for at least `bodies` more bodies and `shapes` more shapes,
    /// so that adding them does not grow the world's arrays step by step
    /// (which can leave up to half of each array unused). On Linux the room
    /// asks for huge pages, which become resident whole when first touched:
    /// reserve what is about to be added, not a guess far beyond it.
    pub fn reserve(&mut self, bodies: usize, shapes: usize) {
        reserve_filled_soon(&mut self.bodies, bodies);
        self.body_slots.reserve(bodies);
        reserve_filled_soon(&mut self.colliders, shapes);
        self.shape_slots.reserve(shapes);
    }

    /// Adds a body with no shapes yet.
    pub fn create_body(&mut self, def: BodyDef) -> Result<BodyHandle, WorldError> {
        def.validate()?;
        let index = next_body_index(self.bodies.len())?;
        let handle = self.body_slots.insert(index);
        self.bodies.push(Body::new(handle, &def));
        if let Some(name) = def.name {
            self.names.insert(handle, name);
        }
        Ok(handle)
    }

    /// Attaches a shape (in the body frame) to a body and updates the body's
    /// mass, centre of mass and inertia from the shapes' densities.
    pub fn add_shape(
        &mut self,
        body: BodyHandle,
        shape: impl Into<Shape>,
        material: Material,
    ) -> Result<ShapeHandle, WorldError> {
        material.validate()?;
        let body_index = self.body_index(body)?;
        self.wake_after_change(body_index);
        let shape = shape.into();
        self.stadiums += usize::from(matches!(shape, Shape::Stadium(_)));
        let collider_index = self.colliders.len() as u32;
        let handle = self.shape_slots.insert(collider_index);
        self.colliders.push(Collider {
            handle,
            body: body_index as u32,
            shape,
            material,
            next_shape: NO_SHAPE,
        });
        let owner = &mut self.bodies[body_index];
        match owner.last_shape {
            NO_SHAPE => owner.first_shape = collider_index,
            last => self.colliders[last as usize].next_shape = collider_index,
        }
        owner.last_shape = collider_index;
        self.update_mass(body_index);
        self.static_version += 1;
        Ok(handle)
    }

    /// Removes a body and its shapes. Every handle to them becomes stale.
    /// The remaining bodies keep their relative order; contact impulses kept
    /// for warm starting are dropped, so the next step starts them afresh.
    pub fn remove_body(&mut self, body: BodyHandle) -> Result<(), WorldError> {
        let index = self.body_index(body)?;
        // Body indices shift below, so the sleeping islands are dissolved.
        self.islands.wake_all(&mut self.bodies);
        let removed = self.bodies.remove(index);
        self.body_slots.remove(body);
        self.names.remove(body);
        let mut removed_shapes = 0;
        for c in shape_list(&self.colliders, removed.first_shape) {
            let collider = &self.colliders[c as usize];
            self.shape_slots.remove(collider.handle);
            self.stadiums -= usize::from(matches!(collider.shape, Shape::Stadium(_)));
            removed_shapes += 1;
        }
        let mut shape_map = vec![NO_SHAPE; self.colliders.len()];
        let mut kept = Vec::with_capacity(self.colliders.len() - removed_shapes);
        for (old, mut collider) in std::mem::take(&mut self.colliders).into_iter().enumerate() {
            if collider.body as usize == index {
                continue;
            }
            if collider.body as usize > index {
                collider.body -= 1;
            }
            shape_map[old] = kept.len() as u32;
            kept.push(collider);
        }
        self.colliders = kept;
        // List ends stay ends.
        let new_index = |s: u32| match s {
            NO_SHAPE => NO_SHAPE,
            s => shape_map[s as usize],
        };
        for (i, collider) in self.colliders.iter_mut().enumerate() {
            self.shape_slots[collider.handle] = i as u32;
            collider.next_shape = new_index(collider.next_shape);
        }
        for (i, b) in self.bodies.iter_mut().enumerate() {
            self.body_slots[b.handle] = i as u32;
            b.first_shape = new_index(b.first_shape);
            b.last_shape = new_index(b.last_shape);
        }
        self.contacts.clear();
        self.static_version += 1;
        Ok(())
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Number of shapes.
    pub fn shape_count(&self) -> usize {
        self.colliders.len()
    }

    /// A read-only view of a body.
    pub fn body(&self, body: BodyHandle) -> Result<BodyRef<'_>, WorldError> {
        let index = self.body_index(body)?;
        Ok(BodyRef { world: self, index })
    }

    /// Every body, in index (creation) order.
    pub fn bodies(&self) -> impl ExactSizeIterator<Item = BodyRef<'_>> + '_ {
        (0..self.bodies.len()).map(move |index| BodyRef { world: self, index })
    }

    /// A read-only view of a shape.
    pub fn shape(&self, shape: ShapeHandle) -> Result<ShapeRef<'_>, WorldError> {
        let index = self.shape_index(shape)?;
        Ok(ShapeRef { world: self, index })
    }

    /// Every shape, in creation order.
    pub fn shapes(&self) -> impl ExactSizeIterator<Item = ShapeRef<'_>> + '_ {
        (0..self.colliders.len()).map(move |index| ShapeRef { world: self, index })
    }

    /// Sets a body's linear velocity (of its centre of mass). Ignored for static bodies.
    pub fn set_linear_velocity(&mut self, body: BodyHandle, v: Vec2) -> Result<(), WorldError> {
        check_finite("velocity.x", v.x)?;
        check_finite("velocity.y", v.y)?;
        let b = self.awake_body_mut(body)?;
        if b.kind != BodyKind::Static {
            b.linear_velocity = v;
        }
        Ok(())
    }

    /// Sets a body's angular velocity. Ignored for static bodies.
    pub fn set_angular_velocity(&mut self, body: BodyHandle, w: f32) -> Result<(), WorldError> {
        check_finite("angular_velocity", w)?;
        let b = self.awake_body_mut(body)?;
        if b.kind != BodyKind::Static {
            b.angular_velocity = w;
        }
        Ok(())
    }

    /// Teleports a body: its origin to `position`, its frame to `angle`.
    pub fn set_transform(
        &mut self,
        body: BodyHandle,
        position: Vec2,
        angle: f32,
    ) -> Result<(), WorldError> {
        check_finite("position.x", position.x)?;
        check_finite("position.y", position.y)?;
        check_finite("angle", angle)?;
        let index = self.body_index(body)?;
        self.wake_after_change(index);
        let b = &mut self.bodies[index];
        b.transform = Transform {
            translation: position,
            rotation: Rot::from_angle(angle),
        };
        b.angle = angle;
        b.center = b.transform.apply(b.local_center);
        self.static_version += 1;
        Ok(())
    }

    /// Applies an impulse (N·s) at a world point: changes the velocity at
    /// once. Only dynamic bodies respond.
    pub fn apply_impulse(
        &mut self,
        body: BodyHandle,
        impulse: Vec2,
        point: Vec2,
    ) -> Result<(), WorldError> {
        check_finite("impulse.x", impulse.x)?;
        check_finite("impulse.y", impulse.y)?;
        check_finite("point.x", point.x)?;
        check_finite("point.y", point.y)?;
        let b = self.awake_body_mut(body)?;
        if b.is_dynamic() {
            b.linear_velocity += b.inv_mass * impulse;
            b.angular_velocity += b.inv_inertia * (point - b.center).perp_dot(impulse);
        }
        Ok(())
    }

    /// Fixed steps taken so far.
    pub fn step_count(&self) -> u64 {
        self.steps
    }

    /// Simulated time so far, seconds (`step_count · dt`).
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.settings.dt as f64
    }

    /// Figures from the last step.
    pub fn stats(&self) -> StepStats {
        self.stats
    }

    /// Advances the world by exactly one fixed step of `settings.dt`.
    ///
    /// A world of fewer than 8,192 shapes steps on the calling thread
    /// alone, as does any world when rayon has one thread. A larger one
    /// shares its step's loops with the threads of the rayon pool it is
    /// called from (`pool.install(|| world.step())`), or of rayon's global
    /// pool when called from any other thread. The result is the same bits
    /// either way and for every pool size.
    pub fn step(&mut self) {
        let threading = Threading::for_step(self.colliders.len(), rayon::current_num_threads());
        if threading == Threading::Pool && rayon::current_thread_index().is_none() {
            // From outside rayon, each parallel loop of the step would hand
            // its work to the pool and block until it came back, a dozen
            // times per step. Entering the pool once costs one hand-off.
            rayon::scope(|_| self.step_with(threading));
        } else {
            self.step_with(threading);
        }
    }

    /// [`World::step`], with its loops run as `threading` says.
    pub(crate) fn step_with(&mut self, threading: Threading) {
        let mut clock = PhaseClock::start();
        if self.islands.any_sleeping() && !self.bodies.iter().any(Body::is_moving) {
            // Everything sleeps or is fixed: nothing can change this step.
            self.stats = StepStats {
                manifolds: self.contacts.len(),
                contact_points: self.contacts.point_count(),
                sleeping_bodies: self.stats.sleeping_bodies,
                timings: StepTimings {
                    finish: clock.lap(),
                    ..StepTimings::default()
                },
                ..StepStats::default()
            };
            self.steps += 1;
            return;
        }
        let margin = self.settings.speculative_distance;
        // The shapes' views and needed boxes, last step's impulses and the
        // broadphase's buffers live until the contacts are made; the solver
        // then takes the same memory.
        let (shapes, contacts) = (self.colliders.len(), self.contacts.len());
        let mut room = self.scratch.room(
            Room::bytes_for::<StepCollider>(shapes)
                + Room::bytes_for::<Aabb>(shapes)
                + Room::bytes_for::<WarmStart>(contacts)
                + self.broadphase.room_hint(shapes),
        );
        let sized = "the room was sized for views, boxes and impulses";
        let view_slots = room.take::<StepCollider>(shapes).expect(sized);
        let needed_slots = room.take::<Aabb>(shapes).expect(sized);
        let warm_slots = room.take::<WarmStart>(contacts).expect(sized);
        let (broadphase, contacts) = (&mut self.broadphase, &self.contacts);
        let find_pairs = |helper: Option<&HelperBoard>| {
            broadphase.find_pairs(
                &self.bodies,
                &self.colliders,
                margin,
                self.settings.dt,
                self.static_version,
                Sharing { threading, helper },
                view_slots,
                needed_slots,
                room,
            )
        };
        // Made on several threads, the contacts need most of last step's
        // impulses copied aside first (all but the first third, which this
        // thread reads in place; see `ContactSet::make_shared`): another
        // thread does it as an errand while the broadphase, which is mostly
        // serial, runs (and its time counts as the broadphase's, which it
        // does not lengthen). The errand is held
        // back until the broadphase releases it, so that thread first takes
        // the work the broadphase shares (the boxes, the grid, the search
        // for pairs); it returns to the pool as the broadphase ends: awake,
        // so it joins in making the contacts at once. Made on this thread
        // alone, they read last step's in place instead, the slots taking
        // the few written over before they are read.
        let ((pairs, views), warm, broadphase) = match threading {
            Threading::Pool => {
                let copy = || {
                    // Moved in, so the copy may hand back slots borrowed
                    // from it.
                    let slots = warm_slots;
                    contacts.keep_warm_starts(slots, threading)
                };
                let lead =
                    |board: &HelperBoard| board.with_held_errand(copy, || find_pairs(Some(board)));
                let ((found, warm), ()) = with_helper(lead, || ());
                (found, Ok(warm), clock.lap())
            }
            Threading::Calling => (find_pairs(None), Err(warm_slots), clock.lap()),
        };
        self.stats.pairs = pairs.len();
        // Whether the solver must load its arrays afresh (see
        // `Solver::load`): taken before anything of this step reads them.
        let changed = self.bodies.take_change();
        let inputs = ContactInputs {
            views,
            batch_rounded: self.stadiums > 0,
            bodies: &self.bodies,
            colliders: &self.colliders,
            margin,
        };
        let any_sleeping = self.islands.any_sleeping();
        let (contacts, solver) = (&mut self.contacts, &mut self.solver);
        let (settings, bodies) = (&self.settings, &self.bodies);
        // With the other thread on a board, the moves of its runs are left
        // to make while the solver colours the contacts (see
        // `Solver::step`).
        let mut make_contacts =
            |on: UpdateOn| contacts.update(pairs, &inputs, any_sleeping, changed, on);
        let load = || solver.load(settings, bodies, threading, changed);
        // Last step's impulses were copied aside exactly when the step is
        // shared with a pool.
        let (narrowphase, loaded) = match warm {
            Ok(warm) if !any_sleeping => {
                // Nothing can wake, so the bodies are loaded into the solver
                // while the contacts are made (when they must be loaded at
                // all; see `Solver::load`): a loop that gains little when
                // shared gets another thread to itself. (Its time then
                // counts as the narrowphase's.) That thread then shares the
                // contacts' chunks on a board, and stays awake there until
                // the contacts are made, ready to colour them.
                let shared = |board: &HelperBoard| make_contacts(UpdateOn::Shared { warm, board });
                let ((), loaded) = with_helper(shared, load);
                (clock.lap(), loaded)
            }
            warm => {
                match warm {
                    // Bodies may wake, so they are loaded afterwards; the
                    // other thread shares the chunks on a board all the
                    // same, and stays awake there for the colouring.
                    Ok(warm) => {
                        with_helper(
                            |board| make_contacts(UpdateOn::Shared { warm, board }),
                            || (),
                        );
                    }
                    Err(spill) => make_contacts(UpdateOn::CallingThread { spill }),
                }
                for &b in self.contacts.to_wake() {
                    self.islands.wake_body(&mut self.bodies, b as usize);
                }
                let narrowphase = clock.lap();
                // Loaded after the wake-ups, which change what it reads.
                let changed = changed | self.bodies.take_change();
                (
                    narrowphase,
                    self.solver
                        .load(&self.settings, &self.bodies, threading, changed),
                )
            }
        };
        let bodies = self.bodies.in_step();
        let readiness = self
            .settings
            .sleep
            .then(|| self.islands.readiness_slots(bodies.len()));
        self.stats.colors = self.solver.step(
            &self.settings,
            bodies,
            &mut self.contacts,
            threading,
            &mut self.scratch,
            readiness,
            loaded,
        );
        self.stats.manifolds = self.contacts.len();
        self.stats.contact_points = self.contacts.point_count();
        let solver = clock.lap();
        self.sweep_and_sleep(threading);
        let finish = clock.lap();
        self.stats.timings = StepTimings {
            broadphase,
            narrowphase,
            solver,
            finish,
        };
        self.steps += 1;
    }

    /// The step's last phase, after the solver: fast bodies are swept back
    /// to their first impact (continuous collision), and islands at rest
    /// fall asleep.
    fn sweep_and_sleep(&mut self, threading: Threading) {
        let (continuous, islands) = (&mut self.continuous, &mut self.islands);
        let (bodies, colliders) = (self.bodies.in_step(), &self.colliders[..]);
        let (pairs_index, contacts, settings) = (&self.broadphase, &self.contacts, &self.settings);
        let start_poses = self.solver.start_poses();
        let mut run = |helper: Option<&HelperBoard>| {
            let hits = match settings.continuous {
                true => continuous.solve(
                    bodies,
                    colliders,
                    start_poses,
                    pairs_index,
                    contacts,
                    helper,
                ),
                false => 0,
            };
            let slept = settings.sleep && {
                let swept = start_poses.fast();
                islands.fall_asleep(bodies, contacts, settings, swept, helper)
            };
            (hits, slept)
        };
        // The other thread shares the sweeps and the search for islands on
        // a board, and waits there meanwhile: left in the pool, it would
        // fall asleep and be woken late for the next step's broadphase.
        let shared = threading == Threading::Pool && (settings.continuous || settings.sleep);
        let (hits, slept) = match shared {
            true => with_helper(|board| run(Some(board)), || ()).0,
            false => run(None),
        };
        self.stats.ccd_hits = hits;
        // Bodies moved back along their sweeps, or put to sleep, are not
        // what the solver's arrays hold for the next step.
        if hits > 0 || slept {
            self.bodies.note_change();
        }
        self.stats.sleeping_bodies = self.islands.sleeping_bodies();
    }

    /// Runs as many fixed steps as `frame_seconds` (plus the time left over
    /// from earlier calls) covers, at most
    /// [`WorldSettings::max_steps_per_advance`], and says how far into the
    /// next step the leftover reaches, for interpolated drawing.
    pub fn advance(&mut self, frame_seconds: f32) -> Result<Advance, WorldError> {
        check_finite("frame_seconds", frame_seconds)?;
        if frame_seconds < 0.0 {
            return Err(WorldError::invalid(
                "frame_seconds",
                format!("must be >= 0, got {frame_seconds}"),
            ));
        }
        let dt = self.settings.dt;
        self.accumulator += frame_seconds;
        let mut steps = 0;
        while self.accumulator >= dt && steps < self.settings.max_steps_per_advance {
            self.step();
            self.accumulator -= dt;
            steps += 1;
        }
        let dropped_time = self.accumulator >= dt;
        if dropped_time {
            self.accumulator %= dt;
        }
        Ok(Advance {
            steps,
            alpha: (self.accumulator / dt).clamp(0.0, 1.0 - f32::EPSILON),
            dropped_time,
        })
    }

    /// The contacts of the last step, in a stable order.
    pub fn contacts(&self) -> impl Iterator<Item = ContactView> + '_ {
        self.contacts
            .with_bodies()
            .map(move |(c, [a, b])| ContactView {
                shape_a: self.colliders[c.shape_a as usize].handle,
                shape_b: self.colliders[c.shape_b as usize].handle,
                body_a: self.bodies[a as usize].handle,
                body_b: self.bodies[b as usize].handle,
                manifold: c.manifold,
                normal_impulses: [c.impulses[0].normal, c.impulses[1].normal],
            })
    }

    /// Deepest overlap among the last step's contact points, metres (0 when
    /// nothing overlaps).
    pub fn max_penetration(&self) -> f32 {
        self.contacts.max_penetration()
    }

    /// A 64-bit FNV-1a hash of the exact bit patterns of every body's
    /// position, angle, linear velocity and angular velocity in index order.
    /// Equal hashes mean identical states.
    pub fn state_hash(&self) -> u64 {
        crate::hash::state_hash(&self.bodies)
    }

    fn body_index(&self, body: BodyHandle) -> Result<usize, WorldError> {
        self.body_slots
            .get(body)
            .map(|&i| i as usize)
            .ok_or(WorldError::StaleBody)
    }

    fn shape_index(&self, shape: ShapeHandle) -> Result<usize, WorldError> {
        self.shape_slots
            .get(shape)
            .map(|&i| i as usize)
            .ok_or(WorldError::StaleShape)
    }

    /// Wakes what a change to body `index` may disturb: its own island, or
    /// every island when a static or kinematic body changes (sleeping
    /// bodies do not look for fixed shapes, so they would not notice).
    fn wake_after_change(&mut self, index: usize) {
        if self.bodies[index].kind == BodyKind::Dynamic {
            self.islands.wake_body(&mut self.bodies, index);
        } else {
            self.islands.wake_all(&mut self.bodies);
        }
    }

    /// The body `body`, woken with its island first, for a change that
    /// moves it.
    fn awake_body_mut(&mut self, body: BodyHandle) -> Result<&mut Body, WorldError> {
        let index = self.body_index(body)?;
        self.islands.wake_body(&mut self.bodies, index);
        Ok(&mut self.bodies[index])
    }

    /// Wakes a sleeping body and every body of its island. Bodies also wake
    /// by themselves when a moving body touches them, and when the program
    /// changes them (velocity, pose, impulse, shapes).
    pub fn wake_body(&mut self, body: BodyHandle) -> Result<(), WorldError> {
        self.awake_body_mut(body).map(|_| ())
    }

    /// Recomputes a body's mass properties from its shapes.
    ///
    /// Mass and first moment add up; the inertia of each shape is moved from
    /// its own centroid to the body's centre of mass by the parallel-axis
    /// theorem, `I = Σ (I_i + m_i |c_i − c|²)`. A dynamic body whose shapes
    /// have no area gets a mass of 1 kg and does not rotate.
    fn update_mass(&mut self, body_index: usize) {
        let body = &self.bodies[body_index];
        let mut mass = 0.0;
        let mut first_moment = Vec2::ZERO;
        let mut parts = Vec::new();
        for c in shape_list(&self.colliders, body.first_shape) {
            let collider = &self.colliders[c as usize];
            let props = collider.shape.mass_properties(collider.material.density);
            mass += props.mass;
            first_moment += props.mass * props.center;
            parts.push(props);
        }
        let local_center = if mass > 0.0 {
            first_moment / mass
        } else {
            Vec2::ZERO
        };
        let inertia: f32 = parts
            .iter()
            .map(|p| p.inertia + p.mass * (p.center - local_center).length_squared())
            .sum();
        let shapes: Vec<Shape> = shape_list(&self.colliders, body.first_shape)
            .map(|c| self.colliders[c as usize].shape)
            .collect();
        let body = &mut self.bodies[body_index];
        body.local_center = local_center;
        body.center = body.transform.apply(local_center);
        body.min_extent = shapes
            .iter()
            .map(|s| s.min_extent())
            .fold(f32::INFINITY, f32::min);
        body.max_extent = shapes
            .iter()
            .map(|s| s.max_extent(local_center))
            .fold(0.0, f32::max);
        if body.kind != BodyKind::Dynamic {
            body.mass = mass;
            body.inertia = inertia;
            body.inv_mass = 0.0;
            body.inv_inertia = 0.0;
            return;
        }
        if mass > 0.0 {
            body.mass = mass;
            body.inv_mass = 1.0 / mass;
        } else {
            body.mass = 1.0;
            body.inv_mass = 1.0;
        }
        body.inertia = inertia;
        body.inv_inertia = if inertia > 0.0 { 1.0 / inertia } else { 0.0 };
    }
}

/// A read-only view of one body.
#[derive(Clone, Copy)]
pub struct BodyRef<'w> {
    world: &'w World,
    index: usize,
}

impl<'w> BodyRef<'w> {
    fn body(&self) -> &'w Body {
        &self.world.bodies[self.index]
    }

    /// The body's handle.
    pub fn handle(&self) -> BodyHandle {
        self.body().handle
    }

    /// The body's index: its place in creation order among live bodies.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Static, kinematic or dynamic.
    pub fn kind(&self) -> BodyKind {
        self.body().kind
    }

    /// The label given at creation.
    pub fn name(&self) -> Option<&'w str> {
        self.world.names.get(self.body().handle).map(String::as_str)
    }

    /// World position of the body origin.
    pub fn position(&self) -> Vec2 {
        self.body().transform.translation
    }

    /// The body angle, radians, accumulated over the whole run (it does not
    /// wrap at ±π, so ten turns read as 20π).
    pub fn angle(&self) -> f32 {
        self.body().angle
    }

    /// Pose of the body origin.
    pub fn transform(&self) -> Transform {
        self.body().transform
    }

    /// World position of the centre of mass.
    pub fn center_of_mass(&self) -> Vec2 {
        self.body().center
    }

    /// Linear velocity of the centre of mass, m/s.
    pub fn linear_velocity(&self) -> Vec2 {
        self.body().linear_velocity
    }

    /// Angular velocity, rad/s.
    pub fn angular_velocity(&self) -> f32 {
        self.body().angular_velocity
    }

    /// Whether the body sleeps: at rest with its island, skipped by the
    /// solver until something wakes it.
    pub fn is_sleeping(&self) -> bool {
        self.body().is_sleeping()
    }

    /// Mass in kilograms (0 for static and kinematic bodies' solver view is
    /// infinite mass; this reports the shapes' mass).
    pub fn mass(&self) -> f32 {
        self.body().mass
    }

    /// Rotational inertia about the centre of mass, kg·m².
    pub fn inertia(&self) -> f32 {
        self.body().inertia
    }

    /// Handles of the body's shapes, in the order they were added.
    pub fn shapes(&self) -> impl Iterator<Item = ShapeHandle> + 'w {
        let colliders = &self.world.colliders;
        shape_list(colliders, self.body().first_shape).map(move |c| colliders[c as usize].handle)
    }
}

/// A read-only view of one shape.
#[derive(Clone, Copy)]
pub struct ShapeRef<'w> {
    world: &'w World,
    index: usize,
}

impl<'w> ShapeRef<'w> {
    fn collider(&self) -> &'w Collider {
        &self.world.colliders[self.index]
    }

    /// The shape's handle.
    pub fn handle(&self) -> ShapeHandle {
        self.collider().handle
    }

    /// The owning body.
    pub fn body(&self) -> BodyHandle {
        self.world.bodies[self.collider().body as usize].handle
    }

    /// The geometry, in the body frame.
    pub fn shape(&self) -> &'w Shape {
        &self.collider().shape
    }

    /// The material.
    pub fn material(&self) -> Material {
        self.collider().material
    }

    /// World-space bounds, where the body is now.
    pub fn aabb(&self) -> Aabb {
        self.collider().shape.aabb_at(&self.transform())
    }

    /// The pose of the owning body (the shape's frame).
    pub fn transform(&self) -> Transform {
        self.world.bodies[self.collider().body as usize].transform
    }
}

/// One touching (or nearly touching) pair of shapes after a step.
#[derive(Debug, Clone, Copy)]
pub struct ContactView {
    /// The first shape; the normal points away from it.
    pub shape_a: ShapeHandle,
    /// The second shape.
    pub shape_b: ShapeHandle,
    /// Body of `shape_a`.
    pub body_a: BodyHandle,
    /// Body of `shape_b`.
    pub body_b: BodyHandle,
    /// Normal, points and separations, as computed at the start of the step.
    pub manifold: ContactManifold,
    /// Accumulated normal impulse of each point over the step, N·s.
    pub normal_impulses: [f32; 2],
}

#[cfg(test)]
impl World {
    /// A world without gravity (otherwise the defaults) holding a disc of
    /// radius 0.5 on a body made from each of `defs`, in order.
    pub(crate) fn weightless_discs(defs: impl IntoIterator<Item = BodyDef>) -> World {
        let settings = WorldSettings {
            gravity: Vec2::ZERO,
            ..WorldSettings::default()
        };
        let mut world = World::new(settings).unwrap();
        let disc = carom_shapes::Circle::new(Vec2::ZERO, 0.5).unwrap();
        for def in defs {
            let body = world.create_body(def).unwrap();
            world.add_shape(body, disc, Material::default()).unwrap();
        }
        world
    }
}

#[cfg(test)]
mod tests {
    use crate::scene::Scene;
    #[cfg(target_arch = "x86_64")]
    use crate::solver::Isa;

    /// The state hash after `steps` steps of a settling pile, its constraint
    /// passes compiled for `isa`.
    #[cfg(target_arch = "x86_64")]
    fn pile_hash(isa: Isa, steps: usize) -> u64 {
        let mut world = Scene::circle_pile(600).build_world().unwrap();
        world.solver.set_isa(isa);
        for _ in 0..steps {
            world.step();
        }
        world.state_hash()
    }

    #[test]
    fn reserving_room_sizes_the_arrays_and_changes_nothing_else() {
        let scene = Scene::circle_pile(300);
        let mut reserved = crate::World::new(scene.world_settings()).unwrap();
        reserved.reserve(1000, 2000);
        assert!(reserved.bodies.capacity() >= 1000 && reserved.colliders.capacity() >= 2000);
        let built = scene.build_world().unwrap();
        // The scene reserves exactly what it adds.
        assert_eq!(built.bodies.capacity(), built.bodies.len());
        assert_eq!(built.colliders.capacity(), built.colliders.len());
        for placed in scene.expand() {
            crate::scene::add_placed(&mut reserved, &placed).unwrap();
        }
        let (mut a, mut b) = (reserved, built);
        for _ in 0..60 {
            a.step();
            b.step();
        }
        assert_eq!(a.state_hash(), b.state_hash());
    }

    /// Steps `world` `steps` times, editing it with `edit` before each step,
    /// and checks that whenever nothing noted a change to the bodies, the
    /// solver's arrays kept from the last step hold what loading the
    /// bodies afresh gives. Returns how many steps were checked, and
    /// whether any body slept and any was swept back by continuous
    /// collision.
    fn check_kept_solver_arrays(
        world: &mut super::World,
        steps: usize,
        mut edit: impl FnMut(&mut super::World, usize),
    ) -> (usize, bool, bool) {
        let (mut checked, mut slept, mut swept) = (0, false, false);
        for step in 0..steps {
            edit(world, step);
            if !world.bodies.changed() {
                assert!(
                    world
                        .solver
                        .holds_what_loading_gives(&world.settings, &world.bodies),
                    "step {step}: the solver's arrays are stale"
                );
                checked += 1;
            }
            world.step();
            slept |= world.stats().sleeping_bodies > 0;
            swept |= world.stats().ccd_hits > 0;
        }
        (checked, slept, swept)
    }

    /// The solver keeps its per-body arrays from step to step. A settling
    /// pile beside a ball that falls asleep on its own floor, with a moving
    /// kinematic paddle and every kind of edit between steps; and a ball
    /// that only continuous collision stops, which moves it back.
    #[test]
    fn the_solver_keeps_its_arrays_only_while_loading_afresh_would_give_the_same() {
        use super::{BodyDef, BodyHandle, Material, World, WorldSettings};
        use carom_shapes::{Circle, Segment};
        use glam::Vec2;

        let add = |world: &mut World, def: BodyDef, shape: carom_shapes::Shape| {
            let body = world.create_body(def).unwrap();
            world.add_shape(body, shape, Material::default()).unwrap();
            body
        };
        let disc = |r: f32| Circle::new(Vec2::ZERO, r).unwrap().into();
        let wall = |a: (f32, f32), b: (f32, f32)| {
            Segment::new(Vec2::new(a.0, a.1), Vec2::new(b.0, b.1))
                .unwrap()
                .into()
        };
        let mut world = Scene::circle_pile(300).build_world().unwrap();
        let moving = BodyDef::kinematic().position(-3.0, 1.0).velocity(0.5, 0.0);
        add(&mut world, moving, wall((0.0, -0.5), (0.0, 0.5)));
        add(&mut world, BodyDef::fixed(), wall((40.0, 0.0), (60.0, 0.0)));
        add(
            &mut world,
            BodyDef::dynamic().position(50.0, 0.3),
            disc(0.3),
        );
        let edit = |world: &mut World, step: usize| {
            let handles: Vec<BodyHandle> = world.bodies().map(|b| b.handle()).collect();
            let some = handles[1 + step % (handles.len() - 1)];
            match step % 97 {
                13 => world
                    .set_linear_velocity(some, Vec2::new(0.3, 1.0))
                    .unwrap(),
                29 => world.set_angular_velocity(some, 2.0).unwrap(),
                41 => world
                    .apply_impulse(some, Vec2::new(0.0, 0.2), Vec2::ZERO)
                    .unwrap(),
                53 => world.set_transform(some, Vec2::new(0.5, 9.0), 0.3).unwrap(),
                61 => {
                    add(world, BodyDef::dynamic().position(0.0, 12.0), disc(0.2));
                }
                71 => world.remove_body(some).unwrap(),
                83 => world.wake_body(some).unwrap(),
                89 => {
                    let gravity = Vec2::new(0.5, -9.0);
                    let settings = WorldSettings {
                        gravity,
                        ..*world.settings()
                    };
                    world.set_settings(settings).unwrap();
                }
                _ => {}
            }
        };
        let (checked, slept, _) = check_kept_solver_arrays(&mut world, 480, edit);
        assert!(checked > 300, "only {checked} of 480 steps kept the arrays");
        assert!(slept, "nothing slept");

        let mut world = World::new(WorldSettings {
            gravity: Vec2::new(0.0, -50_000.0),
            ..WorldSettings::default()
        })
        .unwrap();
        add(&mut world, BodyDef::fixed(), wall((-1.0, 0.0), (1.0, 0.0)));
        add(&mut world, BodyDef::dynamic().position(0.0, 1.1), disc(0.1));
        let (_, _, swept) = check_kept_solver_arrays(&mut world, 5, |_, _| {});
        assert!(swept, "nothing was swept back");
    }

    #[test]
    fn a_full_world_refuses_another_body() {
        assert_eq!(super::next_body_index(12).unwrap(), 12);
        let last = super::MAX_BODIES - 1;
        assert_eq!(super::next_body_index(last).unwrap() as usize, last);
        let full = super::next_body_index(super::MAX_BODIES).unwrap_err();
        assert!(full.to_string().contains("at most 2147483647"), "{full}");
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_avx2_solver_path_gives_the_same_bits_as_the_portable_one() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("this processor has no AVX2: nothing to compare");
            return;
        }
        assert_eq!(pile_hash(Isa::Portable, 150), pile_hash(Isa::Avx2, 150));
    }
}

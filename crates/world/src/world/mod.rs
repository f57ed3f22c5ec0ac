//! The world: bodies and shapes named by handles, made, changed and
//! removed between steps. The step itself lives in `step`, the read-only
//! views an embedder holds in `view`.

use carom_shapes::{Rot, Shape, Transform};
use glam::Vec2;
use slotmap::{SlotMap, SparseSecondaryMap};

use crate::body::{
    Bodies, Body, BodyDef, BodyHandle, BodyKind, Material, ShapeHandle, SpeedLimits,
};
use crate::broadphase::BroadPhase;
use crate::buffer::{reserve_filled_soon, SharedScratch};
use crate::ccd::Continuous;
use crate::collider::{check_reach, shape_list, Collider, NO_SHAPE};
use crate::contacts::ContactSet;
use crate::error::{check_finite, WorldError};
use crate::mass::BodyMass;
use crate::settings::WorldSettings;
use crate::sleep::Islands;
use crate::solver::Solver;

mod step;
mod view;

pub use step::{Advance, StepStats, StepTimings};
pub use view::{BodyRef, ContactView, ShapeRef};

/// A 2D physics world: bodies, their shapes, and the fixed-step solver
/// that moves them.
///
/// Bodies and shapes are named by generational handles ([`BodyHandle`],
/// [`ShapeHandle`]); a handle whose body or shape was removed is reported as
/// [`WorldError::StaleBody`] / [`WorldError::StaleShape`], never reused.
/// A handle carries no mark of the world that made it: another world
/// refuses it only when it has nothing in the same slot, so keep each
/// handle with its own world.
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

    /// Replaces the settings (validated first). Velocities above new,
    /// lower speed limits are cut to them.
    pub fn set_settings(&mut self, settings: WorldSettings) -> Result<(), WorldError> {
        settings.validate()?;
        for body in self.bodies.iter() {
            check_scaled_gravity(settings.gravity, body.gravity_scale)?;
        }
        // Sleeping bodies would not feel new gravity, so they wake.
        if !settings.sleep || settings.gravity != self.settings.gravity {
            self.islands.wake_all(&mut self.bodies);
        }
        let limits = SpeedLimits::of(&settings);
        for body in self.bodies.iter_mut() {
            limits.apply(body);
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

    /// Adds a body with no shapes yet. Its velocities are cut to the
    /// world's speed limits (see [`World::set_linear_velocity`]).
    pub fn create_body(&mut self, def: BodyDef) -> Result<BodyHandle, WorldError> {
        def.validate()?;
        check_scaled_gravity(self.settings.gravity, def.gravity_scale)?;
        let index = next_body_index(self.bodies.len())?;
        let handle = self.body_slots.insert(index);
        let mut body = Body::new(handle, &def);
        SpeedLimits::of(&self.settings).apply(&mut body);
        self.bodies.push(body);
        if let Some(name) = def.name {
            self.names.insert(handle, name);
        }
        Ok(handle)
    }

    /// Attaches a shape (in the body frame) to a body and updates the body's
    /// mass, centre of mass and inertia from the shapes' densities.
    ///
    /// A shape reaching farther than [`MAX_SHAPE_REACH`](crate::MAX_SHAPE_REACH)
    /// from the body's origin is refused (`shape`), and so is a shape with
    /// which a dynamic body's mass or inertia would leave `f32`'s range
    /// (infinite, or too small to invert; `material.density`): the body is
    /// left as it was.
    pub fn add_shape(
        &mut self,
        body: BodyHandle,
        shape: impl Into<Shape>,
        material: Material,
    ) -> Result<ShapeHandle, WorldError> {
        material.validate()?;
        let body_index = self.body_index(body)?;
        let shape = shape.into();
        check_reach(&shape)?;
        let first_shape = self.bodies[body_index].first_shape;
        let shapes: Vec<(Shape, f32)> = shape_list(&self.colliders, first_shape)
            .map(|c| {
                let collider = &self.colliders[c as usize];
                (collider.shape, collider.material.density)
            })
            .chain([(shape, material.density)])
            .collect();
        let mass = BodyMass::of(&shapes);
        if self.bodies[body_index].kind == BodyKind::Dynamic {
            mass.check_dynamic()?;
        }
        self.wake_after_change(body_index);
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
        self.set_mass(body_index, mass, &shapes);
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

    /// Sets a body's linear velocity (of its centre of mass), cut to the
    /// world's `max_linear_speed` along its direction. Ignored for static
    /// bodies.
    pub fn set_linear_velocity(&mut self, body: BodyHandle, v: Vec2) -> Result<(), WorldError> {
        check_finite("velocity.x", v.x)?;
        check_finite("velocity.y", v.y)?;
        let limits = SpeedLimits::of(&self.settings);
        let b = self.awake_body_mut(body)?;
        if b.kind != BodyKind::Static {
            b.linear_velocity = v;
            limits.apply(b);
        }
        Ok(())
    }

    /// Sets a body's angular velocity, cut to the world's
    /// [`WorldSettings::max_angular_speed`]. Ignored for static bodies.
    pub fn set_angular_velocity(&mut self, body: BodyHandle, w: f32) -> Result<(), WorldError> {
        check_finite("angular_velocity", w)?;
        let limits = SpeedLimits::of(&self.settings);
        let b = self.awake_body_mut(body)?;
        if b.kind != BodyKind::Static {
            b.angular_velocity = w;
            limits.apply(b);
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
    /// once, `Δv = J/m` and `Δω = (p − c) × J / I`, worked out in `f64` and
    /// cut to the world's speed limits, so that no impulse, however large,
    /// makes a velocity infinite. Only dynamic bodies respond.
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
        let limits = SpeedLimits::of(&self.settings);
        let b = self.awake_body_mut(body)?;
        if b.is_dynamic() {
            let impulse = impulse.as_dvec2();
            let arm = point.as_dvec2() - b.center.as_dvec2();
            let v = b.linear_velocity.as_dvec2() + f64::from(b.inv_mass) * impulse;
            let w =
                f64::from(b.angular_velocity) + f64::from(b.inv_inertia) * arm.perp_dot(impulse);
            (b.linear_velocity, b.angular_velocity) = limits.cut(v, w);
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

    /// Gives a body the mass properties of its shapes, `mass`, and the
    /// extents the step reads, from `shapes` (all of its shapes, each with
    /// its density). A dynamic body whose shapes have no mass (segments, or
    /// zero density) gets 1 kg and does not rotate.
    fn set_mass(&mut self, body_index: usize, mass: BodyMass, shapes: &[(Shape, f32)]) {
        let BodyMass {
            mass,
            local_center,
            inertia,
            ..
        } = mass;
        let body = &mut self.bodies[body_index];
        body.local_center = local_center;
        body.center = body.transform.apply(local_center);
        body.min_extent = shapes
            .iter()
            .map(|(s, _)| s.min_extent())
            .fold(f32::INFINITY, f32::min);
        body.max_extent = shapes
            .iter()
            .map(|(s, _)| s.max_extent(local_center))
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

/// Checks that a body's own gravity, `scale · gravity`, is finite: both are
/// checked alone, but their product can still overflow `f32`.
fn check_scaled_gravity(gravity: Vec2, scale: f32) -> Result<(), WorldError> {
    if (scale * gravity).is_finite() {
        Ok(())
    } else {
        Err(WorldError::invalid(
            "gravity_scale",
            format!("{scale:e} times the world's gravity {gravity} overflows f32"),
        ))
    }
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

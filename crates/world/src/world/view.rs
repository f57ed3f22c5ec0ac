//! Read-only views of a body, a shape and a contact, for an embedder
//! between steps.

use carom_narrowphase::ContactManifold;
use carom_shapes::{Aabb, Shape, Transform};
use glam::Vec2;

use crate::body::{Body, BodyHandle, BodyKind, Material, ShapeHandle};
use crate::collider::{shape_list, Collider};

use super::World;

/// A read-only view of one body.
#[derive(Clone, Copy)]
pub struct BodyRef<'w> {
    pub(super) world: &'w World,
    pub(super) index: usize,
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
    pub(super) world: &'w World,
    pub(super) index: usize,
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

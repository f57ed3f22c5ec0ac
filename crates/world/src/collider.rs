//! Colliders: a shape attached to a body as the world stores it, and the
//! view of it (placed in the world, with its body's motion bound) that a
//! step's broadphase and narrowphase read.

use carom_narrowphase::PlacedShape;
use carom_shapes::Shape;

use crate::body::{Body, Material, ShapeHandle};

/// A shape attached to a body, as the world stores it.
#[derive(Debug, Clone)]
pub(crate) struct Collider {
    pub handle: ShapeHandle,
    /// Dense index of the owning body.
    pub body: u32,
    /// The shape in the body frame.
    pub shape: Shape,
    pub material: Material,
    /// Dense index of the body's next shape, in the order they were added,
    /// or [`NO_SHAPE`].
    pub next_shape: u32,
}

/// The end of a body's list of shapes.
pub(crate) const NO_SHAPE: u32 = u32::MAX;

/// Dense indices of the shapes in the list that starts at `first`, as
/// linked through [`Collider::next_shape`].
pub(crate) fn shape_list(colliders: &[Collider], first: u32) -> impl Iterator<Item = u32> + '_ {
    std::iter::successors(Some(first).filter(|&s| s != NO_SHAPE), move |&s| {
        Some(colliders[s as usize].next_shape).filter(|&n| n != NO_SHAPE)
    })
}

/// A collider as one step's contact search reads it: placed in the world,
/// with what a pair needs of its body and material. Built once per step in
/// the broadphase's pass over the shapes, so a pair reads two of these from
/// one array instead of two colliders and two bodies, and each shape is
/// transformed once rather than once per pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepCollider {
    /// The shape in world coordinates; `None` for a sector, which is
    /// collided from its own frame.
    pub placed: Option<PlacedShape>,
    /// Dense index of the owning body.
    pub body: u32,
    /// How far any point of the body may move this step.
    pub motion: f32,
    pub friction: f32,
    pub restitution: f32,
    /// Whether the body can move this step ([`crate::body::Body::is_moving`]).
    pub moving: bool,
    /// Whether the body is asleep ([`crate::body::Body::is_sleeping`]).
    pub sleeping: bool,
}

impl StepCollider {
    /// The view of `collider`, owned by `body`, moving at most `motion`.
    #[inline]
    pub fn new(collider: &Collider, body: &Body, motion: f32) -> StepCollider {
        StepCollider {
            placed: PlacedShape::new(&collider.shape, &body.transform),
            body: collider.body,
            motion,
            friction: collider.material.friction,
            restitution: collider.material.restitution,
            moving: body.is_moving(),
            sleeping: body.is_sleeping(),
        }
    }
}

//! Colliders: a shape attached to a body as the world stores it, and the
//! view of it (placed in the world, with its body's motion bound) that a
//! step's broadphase and narrowphase read.

use carom_narrowphase::PlacedShape;
use carom_shapes::Shape;

use crate::body::{Body, Material, ShapeHandle};
use crate::error::WorldError;

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

/// How far, m, any point of a shape may lie from its body's origin along
/// either axis. The solver works with the arms from a body's centre of mass
/// to its contact points, and their squares overflow `f32` from about
/// 1.8e19 m; well before that `f32` no longer resolves a shape's size (at
/// 1e15 m its spacing is 0.125 km).
pub const MAX_SHAPE_REACH: f32 = 1e15;

/// Checks that `shape`, in its body's frame, lies within
/// [`MAX_SHAPE_REACH`] of the origin along each axis; the error names the
/// field `shape`.
pub(crate) fn check_reach(shape: &Shape) -> Result<(), WorldError> {
    let aabb = shape.aabb();
    let reach = aabb.min.abs().max(aabb.max.abs()).max_element();
    if reach <= MAX_SHAPE_REACH {
        Ok(())
    } else {
        Err(WorldError::invalid(
            "shape",
            format!(
                "reaches {reach:e} m from its body's origin, beyond the {MAX_SHAPE_REACH:e} m \
                 a shape may lie from it"
            ),
        ))
    }
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

use carom_shapes::{Aabb, Shape};

use crate::body::{Material, ShapeHandle};

/// A shape attached to a body, as the world stores it.
#[derive(Debug, Clone)]
pub(crate) struct Collider {
    pub handle: ShapeHandle,
    /// Dense index of the owning body.
    pub body: u32,
    /// The shape in the body frame.
    pub shape: Shape,
    pub material: Material,
    /// World-space bounds at the end of the last step.
    pub aabb: Aabb,
}

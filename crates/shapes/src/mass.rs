use glam::Vec2;

/// Mass, centre of mass and rotational inertia of a shape of uniform density.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MassProperties {
    /// Mass in kilograms (area × density).
    pub mass: f32,
    /// Centre of mass in the shape's frame.
    pub center: Vec2,
    /// Rotational inertia about `center`, in kg·m².
    pub inertia: f32,
}

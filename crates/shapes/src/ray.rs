use glam::Vec2;

/// A ray from `origin` along `translation`; a hit reports how far along it
/// lies as a fraction of `translation` (so `origin + fraction · translation`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec2,
    /// The ray's direction and length: fraction 1 lies at `origin + translation`.
    pub translation: Vec2,
}

/// Where a ray first meets a shape's boundary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The hit point.
    pub point: Vec2,
    /// The unit outward normal of the shape at the hit point.
    pub normal: Vec2,
    /// The hit point as a fraction of the ray's translation.
    pub fraction: f32,
}

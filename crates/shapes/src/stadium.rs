use glam::Vec2;

use crate::error::{check_point, check_radius, ShapeError};

/// A stadium (capsule): every point within `radius` of the core segment `ab`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stadium {
    a: Vec2,
    b: Vec2,
    radius: f32,
}

impl Stadium {
    /// A stadium around the core `ab` (distinct, finite points) with `radius > 0`.
    pub fn new(a: Vec2, b: Vec2, radius: f32) -> Result<Stadium, ShapeError> {
        check_point(a, "stadium end a")?;
        check_point(b, "stadium end b")?;
        check_radius(radius)?;
        if a == b {
            return Err(ShapeError::ZeroLengthStadium);
        }
        Ok(Stadium { a, b, radius })
    }

    /// The first end of the core.
    #[inline]
    pub fn a(&self) -> Vec2 {
        self.a
    }

    /// The second end of the core.
    #[inline]
    pub fn b(&self) -> Vec2 {
        self.b
    }

    /// The radius around the core.
    #[inline]
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

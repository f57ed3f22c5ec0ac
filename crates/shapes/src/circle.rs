use glam::Vec2;

use crate::error::{check_point, check_radius, ShapeError};

/// A solid disc.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Circle {
    center: Vec2,
    radius: f32,
}

impl Circle {
    /// A disc of `radius > 0` around `center`.
    pub fn new(center: Vec2, radius: f32) -> Result<Circle, ShapeError> {
        check_point(center, "circle center")?;
        check_radius(radius)?;
        Ok(Circle { center, radius })
    }

    /// The centre.
    #[inline]
    pub fn center(&self) -> Vec2 {
        self.center
    }

    /// The radius.
    #[inline]
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

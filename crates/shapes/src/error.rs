use thiserror::Error;

/// Why a shape could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum ShapeError {
    /// A coordinate, radius or angle was NaN or infinite.
    #[error("{what} must be finite")]
    NonFinite {
        /// Which input was not finite, for example `"radius"`.
        what: &'static str,
    },
    /// A circle, stadium or sector radius was zero or negative.
    #[error("radius must be > 0, got {0}")]
    NonPositiveRadius(f32),
    /// A segment's end points coincide.
    #[error("segment has zero length (its end points coincide)")]
    ZeroLengthSegment,
    /// A stadium's core segment has coincident end points.
    #[error("stadium core has zero length; use a Circle for a round shape")]
    ZeroLengthStadium,
    /// A sector's sweep was outside (0, 2π].
    #[error("sector sweep must lie in (0, 2π], got {0}")]
    SweepOutOfRange(f32),
}

/// Checks that every component of a point is finite.
pub(crate) fn check_point(p: glam::Vec2, what: &'static str) -> Result<(), ShapeError> {
    if p.is_finite() {
        Ok(())
    } else {
        Err(ShapeError::NonFinite { what })
    }
}

/// Checks that a radius is finite and strictly positive.
pub(crate) fn check_radius(r: f32) -> Result<(), ShapeError> {
    if !r.is_finite() {
        Err(ShapeError::NonFinite { what: "radius" })
    } else if r <= 0.0 {
        Err(ShapeError::NonPositiveRadius(r))
    } else {
        Ok(())
    }
}

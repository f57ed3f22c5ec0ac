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

/// Checks that a radius is finite and strictly positive, and that its square
/// is finite too: areas and inertias use `r²`, and an infinite `r²` would
/// turn into NaN as soon as it meets a zero.
pub(crate) fn check_radius(r: f32) -> Result<(), ShapeError> {
    if !r.is_finite() {
        Err(ShapeError::NonFinite { what: "radius" })
    } else if r <= 0.0 {
        Err(ShapeError::NonPositiveRadius(r))
    } else if !(r * r).is_finite() {
        Err(ShapeError::NonFinite {
            what: "radius squared",
        })
    } else {
        Ok(())
    }
}

/// Checks that the core `ab` of a segment or stadium has a usable length.
///
/// Comparing `a == b` is not enough: two distinct points closer than about
/// 1e-23 give `|b − a|² = 0` after rounding, and the unit normal would be
/// 0/0. Points further apart than about 1e19 overflow `|b − a|²` instead.
pub(crate) fn check_core(a: glam::Vec2, b: glam::Vec2, zero: ShapeError) -> Result<(), ShapeError> {
    let len_sq = (b - a).length_squared();
    if len_sq == 0.0 {
        Err(zero)
    } else if !len_sq.is_finite() {
        Err(ShapeError::NonFinite {
            what: "core length squared",
        })
    } else {
        Ok(())
    }
}

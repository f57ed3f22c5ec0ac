use std::f32::consts::{PI, TAU};

use glam::Vec2;

use crate::error::{check_point, check_radius, ShapeError};

/// A circular sector (pie slice): the points `p` with `|p − center| ≤ radius`
/// whose direction from `center` lies in `[start, start + sweep]`
/// counter-clockwise, with `0 < sweep ≤ 2π`.
///
/// The unit directions of both edges are kept beside the angles so that
/// containment and contact tests need no trigonometry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sector {
    center: Vec2,
    radius: f32,
    start: f32,
    sweep: f32,
    start_dir: Vec2,
    end_dir: Vec2,
}

impl Sector {
    /// A sector; `sweep` must lie in (0, 2π]. `start` may be any finite angle.
    pub fn new(center: Vec2, radius: f32, start: f32, sweep: f32) -> Result<Sector, ShapeError> {
        check_point(center, "sector center")?;
        check_radius(radius)?;
        if !start.is_finite() {
            return Err(ShapeError::NonFinite {
                what: "sector start",
            });
        }
        if !sweep.is_finite() {
            return Err(ShapeError::NonFinite {
                what: "sector sweep",
            });
        }
        if sweep <= 0.0 || sweep > TAU {
            return Err(ShapeError::SweepOutOfRange(sweep));
        }
        Ok(Sector::from_valid(center, radius, start, sweep))
    }

    /// Builds a sector from inputs already known to be valid.
    fn from_valid(center: Vec2, radius: f32, start: f32, sweep: f32) -> Sector {
        let (s0, c0) = start.sin_cos();
        let (s1, c1) = (start + sweep).sin_cos();
        Sector {
            center,
            radius,
            start,
            sweep,
            start_dir: Vec2::new(c0, s0),
            end_dir: Vec2::new(c1, s1),
        }
    }

    /// The apex (centre of the full circle).
    #[inline]
    pub fn center(&self) -> Vec2 {
        self.center
    }

    /// The radius.
    #[inline]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The angle of the first edge.
    #[inline]
    pub fn start(&self) -> f32 {
        self.start
    }

    /// The counter-clockwise angle from the first edge to the second, in (0, 2π].
    #[inline]
    pub fn sweep(&self) -> f32 {
        self.sweep
    }

    /// Unit direction of the first edge, `(cos start, sin start)`.
    #[inline]
    pub fn start_dir(&self) -> Vec2 {
        self.start_dir
    }

    /// Unit direction of the second edge, `(cos(start + sweep), sin(start + sweep))`.
    #[inline]
    pub fn end_dir(&self) -> Vec2 {
        self.end_dir
    }

    /// Whether the sector is convex (sweep ≤ π).
    #[inline]
    pub fn is_convex(&self) -> bool {
        self.sweep <= PI
    }

    /// The sector as one or two convex sectors whose union is `self`.
    ///
    /// A sweep above π makes the slice non-convex (a pie with a bite out);
    /// cutting it along its bisector gives two halves of sweep ≤ π, each of
    /// which is convex. Contact routines run on each half.
    pub fn convex_parts(&self) -> (Sector, Option<Sector>) {
        if self.is_convex() {
            return (*self, None);
        }
        let half = 0.5 * self.sweep;
        let first = Sector::from_valid(self.center, self.radius, self.start, half);
        let second = Sector::from_valid(self.center, self.radius, self.start + half, half);
        (first, Some(second))
    }
}

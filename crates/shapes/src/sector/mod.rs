mod bounds;
mod distance;
mod extent;
mod mass;
mod ray_cast;
mod wedge;

use std::f32::consts::{PI, TAU};

use glam::Vec2;

use crate::error::{check_point, check_radius, ShapeError};
use crate::Rot;

/// A circular sector (pie slice): the points `p` with `|p − center| ≤ radius`
/// whose direction from `center` lies in `[start, start + sweep]`
/// counter-clockwise, with `0 < sweep ≤ 2π`.
///
/// The unit directions of both edges are kept beside the angles so that
/// containment and contact tests need no trigonometry.
///
/// The boundary is the two straight edges from the apex to the arc ends and
/// the arc between them; a sweep of exactly 2π is the whole disc, whose
/// boundary is only the circle. A sweep above π gives a non-convex shape;
/// see [`Sector::convex_parts`].
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
    ///
    /// Fails when an input is not finite, the radius is not positive or its
    /// square overflows, or the sweep is out of range.
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
    ///
    /// The end direction is the start direction turned by `sweep`, not
    /// `sin_cos(start + sweep)`: for a large `start` the sum rounds away the
    /// sweep, and the two edges would disagree with it.
    fn from_valid(center: Vec2, radius: f32, start: f32, sweep: f32) -> Sector {
        let start_dir = Vec2::from_angle(start);
        Sector {
            center,
            radius,
            start,
            sweep,
            start_dir,
            end_dir: Rot::from_angle(sweep).rotate(start_dir),
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

    /// Whether the sweep is a whole turn, making the sector a full disc.
    #[inline]
    pub fn is_full_disc(&self) -> bool {
        self.sweep >= TAU
    }

    /// The end of the first edge on the arc, `center + radius · start_dir`.
    #[inline]
    pub fn start_point(&self) -> Vec2 {
        self.center + self.radius * self.start_dir
    }

    /// The end of the second edge on the arc, `center + radius · end_dir`.
    #[inline]
    pub fn end_point(&self) -> Vec2 {
        self.center + self.radius * self.end_dir
    }

    /// Whether the direction `d` from the apex lies within the sweep (see
    /// [`wedge::covers`]). The zero vector counts as covered.
    #[inline]
    fn covers_direction(&self, d: Vec2) -> bool {
        wedge::covers(self.start_dir, self.end_dir, self.sweep, d)
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

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    #[test]
    fn rejects_bad_input() {
        let c = Vec2::ZERO;
        assert_eq!(
            Sector::new(c, 1.0, 0.0, 0.0),
            Err(ShapeError::SweepOutOfRange(0.0))
        );
        assert_eq!(
            Sector::new(c, 1.0, 0.0, 7.0),
            Err(ShapeError::SweepOutOfRange(7.0))
        );
        assert!(Sector::new(c, 1.0, f32::NAN, 1.0).is_err());
        assert!(Sector::new(c, 1.0, 0.0, f32::INFINITY).is_err());
        assert!(Sector::new(c, -1.0, 0.0, 1.0).is_err());
        assert!(Sector::new(c, 1.0, 0.0, TAU).is_ok());
    }

    #[test]
    fn edge_directions_and_points() {
        let s = Sector::new(Vec2::new(1.0, 1.0), 2.0, 0.0, FRAC_PI_2).unwrap();
        assert_eq!(s.start_dir(), Vec2::X);
        assert!(s.end_dir().abs_diff_eq(Vec2::Y, 1e-6));
        assert_eq!(s.start_point(), Vec2::new(3.0, 1.0));
        assert!(s.end_point().abs_diff_eq(Vec2::new(1.0, 3.0), 1e-6));
    }

    #[test]
    fn end_direction_keeps_the_sweep_for_a_huge_start() {
        // 1e8 + 0.5 rounds back to 1e8 in f32; turning the start direction
        // by the sweep keeps the edges half a radian apart.
        let s = Sector::new(Vec2::ZERO, 1.0, 1e8, 0.5).unwrap();
        let between = s.start_dir().dot(s.end_dir()).clamp(-1.0, 1.0).acos();
        assert!((between - 0.5).abs() < 1e-4, "{between}");
    }

    #[test]
    fn convex_parts_split_along_the_bisector() {
        let s = Sector::new(Vec2::ZERO, 1.0, 0.0, 1.5 * PI).unwrap();
        assert!(!s.is_convex());
        let (first, second) = s.convex_parts();
        let second = second.unwrap();
        assert_eq!(first.sweep(), 0.75 * PI);
        assert_eq!(second.start(), 0.75 * PI);
        assert!(first.end_dir().abs_diff_eq(second.start_dir(), 1e-6));
        assert!(second.end_dir().abs_diff_eq(s.end_dir(), 1e-6));
        let convex = Sector::new(Vec2::ZERO, 1.0, 0.0, PI).unwrap();
        assert_eq!(convex.convex_parts(), (convex, None));
    }

    #[test]
    fn full_disc_flag() {
        assert!(Sector::new(Vec2::ZERO, 1.0, 0.3, TAU)
            .unwrap()
            .is_full_disc());
        assert!(!Sector::new(Vec2::ZERO, 1.0, 0.3, 6.0)
            .unwrap()
            .is_full_disc());
    }
}

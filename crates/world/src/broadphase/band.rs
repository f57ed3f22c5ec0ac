//! Wall bands: the strip beside a fixed wall that another shape must reach
//! to be paired with it (see the module notes of the broadphase).

use carom_shapes::{Aabb, Shape, Transform};
use glam::Vec2;

/// The strip `|normal·x − offset| ≤ half_width` that a shape must reach to
/// touch a wall this step (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Band {
    normal: Vec2,
    offset: f32,
    half_width: f32,
}

impl Band {
    /// The band of a segment or stadium placed by `xf` whose points move at
    /// most `reach − margin/2` this step; `None` for other shapes.
    pub(super) fn of_wall(shape: &Shape, xf: &Transform, reach: f32) -> Option<Band> {
        let (a, b, radius) = match shape {
            Shape::Segment(s) => (s.a(), s.b(), 0.0),
            Shape::Stadium(s) => (s.a(), s.b(), s.radius()),
            Shape::Circle(_) | Shape::Sector(_) => return None,
        };
        let (a, b) = (xf.apply(a), xf.apply(b));
        let normal = (b - a).perp().try_normalize()?;
        Some(Band {
            normal,
            offset: normal.dot(a),
            half_width: radius + reach,
        })
    }

    /// Whether box `b` reaches into the band: the distance from its centre
    /// to the line, less its half extent along the normal, is at most the
    /// half width.
    #[inline]
    pub(super) fn reaches(&self, b: &Aabb) -> bool {
        let center = 0.5 * (b.min + b.max);
        let half = 0.5 * (b.max - b.min);
        let from_line = (self.normal.dot(center) - self.offset).abs();
        from_line - self.normal.abs().dot(half) <= self.half_width
    }
}

#[cfg(test)]
mod tests {
    use carom_narrowphase::collide;
    use carom_shapes::{Circle, Segment, Shape, Stadium, Transform};
    use glam::Vec2;
    use proptest::prelude::*;

    use super::Band;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// A wall's band never leaves out a shape the narrowphase would give
        /// a point: segments and stadiums of any pose against circles and
        /// capsules of any pose, with motions and margins.
        #[test]
        fn a_wall_band_keeps_every_pair_the_narrowphase_would_touch(
            (ax, ay, bx, by) in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
            wall_radius in prop_oneof![Just(0.0f32), 0.05f32..1.0],
            angle in -3.2f32..3.2,
            (x, y, r) in (-8.0f32..8.0, -8.0f32..8.0, 0.05f32..1.0),
            capsule in any::<bool>(),
            (wall_motion, motion, half_margin) in (0.0f32..0.5, 0.0f32..0.5, 0.0f32..0.1),
        ) {
            let (a, b) = (Vec2::new(ax, ay), Vec2::new(bx, by));
            let wall: Shape = if wall_radius > 0.0 {
                let Ok(stadium) = Stadium::new(a, b, wall_radius) else { return Ok(()) };
                stadium.into()
            } else {
                let Ok(segment) = Segment::new(a, b) else { return Ok(()) };
                segment.into()
            };
            let other: Shape = if capsule {
                Stadium::new(Vec2::new(-r, 0.0), Vec2::new(r, 0.0), 0.5 * r).unwrap().into()
            } else {
                Circle::new(Vec2::ZERO, r).unwrap().into()
            };
            let wall_xf = Transform::new(Vec2::new(0.5, -0.25), 0.3);
            let xf = Transform::new(Vec2::new(x, y), angle);
            // What the narrowphase would be asked: every point within the
            // margin plus both motions.
            let reach = 2.0 * half_margin + wall_motion + motion;
            let manifold = collide(&wall, &wall_xf, &other, &xf, reach);
            let needed = other.aabb_at(&xf).expanded(motion + half_margin);
            let band = Band::of_wall(&wall, &wall_xf, wall_motion + half_margin).unwrap();
            prop_assert!(manifold.is_empty() || band.reaches(&needed));
        }
    }
}

use glam::Vec2;

/// Names the pair of features (vertex, edge, arc, half of a sector…) that
/// produced a contact point, so the world can match a point with the same
/// point of the previous step and warm-start its impulses.
///
/// The id is built from one small feature number per shape; it is stable as
/// long as the same features stay in contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FeatureId(pub u16);

impl FeatureId {
    /// The id of the contact between feature `a` of shape A and feature `b` of shape B.
    #[inline]
    pub const fn new(a: u8, b: u8) -> FeatureId {
        FeatureId(((a as u16) << 8) | b as u16)
    }

    /// The same contact seen with the shapes swapped.
    #[inline]
    pub const fn swapped(self) -> FeatureId {
        FeatureId(self.0.rotate_left(8))
    }
}

/// One contact point. The layout is fixed (`repr(C)`: point, separation,
/// id), so that a solver may load points as packed floats.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct ManifoldPoint {
    /// World position of the point: midway between the two surfaces.
    pub point: Vec2,
    /// Signed distance between the surfaces along the normal; negative when
    /// the shapes overlap, positive (up to the margin) for speculative points.
    pub separation: f32,
    /// Which features touch here.
    pub id: FeatureId,
}

/// The contact between two shapes: a shared normal and up to two points.
/// The layout is fixed (`repr(C)`: normal, points, count).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct ContactManifold {
    /// Unit normal in world space, pointing from shape A to shape B.
    pub normal: Vec2,
    /// The contact points; only the first `count` are meaningful.
    pub points: [ManifoldPoint; 2],
    /// How many points there are: 0 (apart by more than the margin), 1 or 2.
    pub count: usize,
}

impl ContactManifold {
    /// A manifold with no points.
    pub const EMPTY: ContactManifold = ContactManifold {
        normal: Vec2::ZERO,
        points: [ManifoldPoint {
            point: Vec2::ZERO,
            separation: 0.0,
            id: FeatureId(0),
        }; 2],
        count: 0,
    };

    /// The meaningful points.
    #[inline]
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.count]
    }

    /// Whether there are no points.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The point with the smallest separation (the first one on ties), or
    /// `None` when there are no points.
    pub fn deepest(&self) -> Option<&ManifoldPoint> {
        self.points().iter().reduce(|best, p| {
            if p.separation < best.separation {
                p
            } else {
                best
            }
        })
    }

    /// A manifold with one point.
    pub(crate) fn single(
        normal: Vec2,
        point: Vec2,
        separation: f32,
        id: FeatureId,
    ) -> ContactManifold {
        let mut manifold = ContactManifold::EMPTY;
        manifold.normal = normal;
        manifold.points[0] = ManifoldPoint {
            point,
            separation,
            id,
        };
        manifold.count = 1;
        manifold
    }

    /// The manifold without the points whose separation exceeds `margin`,
    /// keeping the order of the others.
    ///
    /// A manifold has at most two points, so the cases are spelled out and
    /// the result built as a new value: moving a point within the array in
    /// place made later whole-manifold copies wait on the narrower stores.
    pub(crate) fn within_margin(self, margin: f32) -> ContactManifold {
        let [first, second] = self.points;
        let keep_first = self.count > 0 && first.separation <= margin;
        let keep_second = self.count > 1 && second.separation <= margin;
        let points = if keep_first {
            [first, second]
        } else {
            [second, second]
        };
        ContactManifold {
            normal: self.normal,
            points,
            count: usize::from(keep_first) + usize::from(keep_second),
        }
    }

    /// The same contact seen from the other shape: the normal flips and each
    /// feature id swaps its halves.
    pub fn swapped(mut self) -> ContactManifold {
        self.normal = -self.normal;
        for p in &mut self.points[..self.count] {
            p.id = p.id.swapped();
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two(first: f32, second: f32) -> ContactManifold {
        let point = |x: f32, separation: f32, id: u8| ManifoldPoint {
            point: Vec2::new(x, 0.0),
            separation,
            id: FeatureId::new(id, 0),
        };
        ContactManifold {
            normal: Vec2::Y,
            points: [point(0.0, first, 1), point(1.0, second, 2)],
            count: 2,
        }
    }

    #[test]
    fn within_margin_keeps_the_points_inside_in_order() {
        let ids = |m: ContactManifold| m.points().iter().map(|p| p.id).collect::<Vec<_>>();
        let (first, second) = (FeatureId::new(1, 0), FeatureId::new(2, 0));
        assert_eq!(ids(two(0.0, 0.0).within_margin(0.1)), vec![first, second]);
        assert_eq!(ids(two(0.0, 0.5).within_margin(0.1)), vec![first]);
        assert_eq!(ids(two(0.5, 0.0).within_margin(0.1)), vec![second]);
        assert!(two(0.5, 0.5).within_margin(0.1).is_empty());
        let single = ContactManifold::single(Vec2::Y, Vec2::ZERO, 0.2, first);
        assert!(single.within_margin(0.1).is_empty());
        assert_eq!(single.within_margin(0.3).count, 1);
    }
}

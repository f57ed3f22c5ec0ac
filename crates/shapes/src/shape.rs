use glam::Vec2;

use crate::{Aabb, Circle, MassProperties, Ray, RayHit, Sector, Segment, Stadium, Transform};

/// Any carom shape, in its own frame.
///
/// An enum rather than a trait object: the set of shapes is closed, matching
/// on it is cheap, and contact dispatch needs to see both kinds at once.
///
/// Every query is forwarded to the shape inside; see the methods of
/// [`Circle`], [`Segment`], [`Stadium`] and [`Sector`] for the details.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A solid disc.
    Circle(Circle),
    /// A wall with no thickness and no mass.
    Segment(Segment),
    /// A capsule.
    Stadium(Stadium),
    /// A pie slice.
    Sector(Sector),
}

/// The kind of a [`Shape`], without its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShapeKind {
    /// [`Shape::Circle`].
    Circle,
    /// [`Shape::Segment`].
    Segment,
    /// [`Shape::Stadium`].
    Stadium,
    /// [`Shape::Sector`].
    Sector,
}

/// Forwards a call to whichever shape the enum holds.
macro_rules! each_shape {
    ($shape:expr, $inner:ident => $call:expr) => {
        match $shape {
            Shape::Circle($inner) => $call,
            Shape::Segment($inner) => $call,
            Shape::Stadium($inner) => $call,
            Shape::Sector($inner) => $call,
        }
    };
}

impl Shape {
    /// Which kind of shape this is.
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Circle(_) => ShapeKind::Circle,
            Shape::Segment(_) => ShapeKind::Segment,
            Shape::Stadium(_) => ShapeKind::Stadium,
            Shape::Sector(_) => ShapeKind::Sector,
        }
    }

    /// The tight bounding box in the shape's frame.
    pub fn aabb(&self) -> Aabb {
        each_shape!(self, s => s.aabb())
    }

    /// The tight bounding box of the shape placed by `xf`.
    pub fn aabb_at(&self, xf: &Transform) -> Aabb {
        each_shape!(self, s => s.aabb_at(xf))
    }

    /// The same shape with its points mapped by `xf`.
    pub fn transformed(&self, xf: &Transform) -> Shape {
        each_shape!(self, s => s.transformed(xf).into())
    }

    /// Whether the local point `p` lies in the shape, boundary included.
    /// Always `false` for a segment, which has no interior.
    pub fn contains(&self, p: Vec2) -> bool {
        each_shape!(self, s => s.contains(p))
    }

    /// The distance from the local point `p` to the boundary, negative
    /// inside. Never negative for a segment.
    pub fn signed_distance(&self, p: Vec2) -> f32 {
        each_shape!(self, s => s.signed_distance(p))
    }

    /// The point of the shape nearest the local point `p` (`p` itself when
    /// inside).
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        each_shape!(self, s => s.closest_point(p))
    }

    /// The first hit of a local-frame ray with the boundary, for fractions in
    /// `[0, 1]`. A ray that starts inside (or on) a solid shape, or has zero
    /// length, hits nothing; a segment is hit from either side.
    pub fn ray_cast(&self, ray: &Ray) -> Option<RayHit> {
        each_shape!(self, s => s.ray_cast(ray))
    }

    /// The first hit of a world-space ray with the shape placed by `xf`,
    /// reported in world space (the fraction is frame-independent).
    pub fn ray_cast_at(&self, xf: &Transform, ray: &Ray) -> Option<RayHit> {
        self.ray_cast(&ray.to_local(xf)).map(|hit| hit.to_world(xf))
    }

    /// The area; zero for a segment.
    pub fn area(&self) -> f32 {
        each_shape!(self, s => s.area())
    }

    /// Mass, centre of mass (in the shape's frame) and inertia about that
    /// centre, for a uniform `density` in kg/m². A segment has none.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        each_shape!(self, s => s.mass_properties(density))
    }

    /// Half the thinnest width: the radius of the largest disc inside the
    /// shape (zero for a segment). Continuous collision uses it to decide
    /// when a body moves far enough in one step to tunnel.
    pub fn min_extent(&self) -> f32 {
        each_shape!(self, s => s.min_extent())
    }

    /// The largest distance from the local point `from` to any point of the
    /// shape, for example the swept radius about a body's centre of mass.
    pub fn max_extent(&self, from: Vec2) -> f32 {
        each_shape!(self, s => s.max_extent(from))
    }
}

impl From<Circle> for Shape {
    fn from(c: Circle) -> Shape {
        Shape::Circle(c)
    }
}

impl From<Segment> for Shape {
    fn from(s: Segment) -> Shape {
        Shape::Segment(s)
    }
}

impl From<Stadium> for Shape {
    fn from(s: Stadium) -> Shape {
        Shape::Stadium(s)
    }
}

impl From<Sector> for Shape {
    fn from(s: Sector) -> Shape {
        Shape::Sector(s)
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::{FRAC_PI_2, PI};

    use super::*;

    fn shapes() -> [Shape; 4] {
        [
            Circle::new(Vec2::new(1.0, 0.0), 1.0).unwrap().into(),
            Segment::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0))
                .unwrap()
                .into(),
            Stadium::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5)
                .unwrap()
                .into(),
            Sector::new(Vec2::ZERO, 2.0, 0.0, FRAC_PI_2).unwrap().into(),
        ]
    }

    #[test]
    fn kinds() {
        let kinds = shapes().map(|s| s.kind());
        assert_eq!(
            kinds,
            [
                ShapeKind::Circle,
                ShapeKind::Segment,
                ShapeKind::Stadium,
                ShapeKind::Sector
            ]
        );
    }

    #[test]
    fn forwards_to_the_inner_shape() {
        let [circle, segment, stadium, sector] = shapes();
        assert_eq!(
            circle.aabb(),
            Aabb::new(Vec2::new(0.0, -1.0), Vec2::new(2.0, 1.0))
        );
        assert!(circle.contains(Vec2::new(1.5, 0.0)));
        assert!(!segment.contains(Vec2::ZERO));
        assert_eq!(segment.signed_distance(Vec2::new(0.0, -2.0)), 2.0);
        assert_eq!(
            stadium.closest_point(Vec2::new(0.0, 3.0)),
            Vec2::new(0.0, 0.5)
        );
        assert!((sector.area() - PI).abs() < 1e-6);
        assert_eq!(segment.mass_properties(1.0).mass, 0.0);
        assert_eq!(stadium.min_extent(), 0.5);
        assert_eq!(circle.max_extent(Vec2::ZERO), 2.0);
    }

    #[test]
    fn transformed_keeps_the_kind() {
        let xf = Transform::new(Vec2::new(3.0, 4.0), 0.5);
        for shape in shapes() {
            assert_eq!(shape.transformed(&xf).kind(), shape.kind());
        }
    }

    #[test]
    fn ray_cast_at_works_in_world_space() {
        // The quarter sector turned by 90° and moved to (10, 0) occupies the
        // quarter disc left of x = 10 above y = 0.
        let sector = shapes()[3];
        let xf = Transform::new(Vec2::new(10.0, 0.0), FRAC_PI_2);
        let ray = Ray {
            origin: Vec2::new(9.0, -2.0),
            translation: Vec2::new(0.0, 4.0),
        };
        let hit = sector.ray_cast_at(&xf, &ray).unwrap();
        assert!((hit.fraction - 0.5).abs() < 1e-6);
        assert!(hit.point.abs_diff_eq(Vec2::new(9.0, 0.0), 1e-5));
        assert!(hit.normal.abs_diff_eq(Vec2::new(0.0, -1.0), 1e-5));
        let world = sector.aabb_at(&xf);
        assert!(world.min.abs_diff_eq(Vec2::new(8.0, 0.0), 1e-5));
        assert!(world.max.abs_diff_eq(Vec2::new(10.0, 2.0), 1e-5));
    }
}

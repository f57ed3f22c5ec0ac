//! A scene made in code: the circle pile used to measure how step time
//! grows with the number of bodies.

use glam::Vec2;

use super::spec::{BodySpec, GridSpec, MaterialSpec, Scene, ShapeSpec};
use crate::BodyKind;

/// Circle radius of the pile, m (the hopper's).
const RADIUS: f32 = 0.25;
/// Rows of circles the grid starts with; the pile settles about this deep,
/// so the work per body is the same at every size.
const ROWS: u32 = 30;
/// Distance between neighbouring circles in the starting grid, m.
const SPACING: f32 = 0.6;

impl Scene {
    /// `count` circles of radius 0.25 m in a staggered grid 30 rows tall,
    /// dropped into an open box just wide enough for them: the hopper scaled
    /// sideways, so the pile's depth and so the work per body do not change
    /// with `count`. Used by the scaling benchmarks.
    pub fn circle_pile(count: u32) -> Scene {
        let columns = count.div_ceil(ROWS).max(1);
        let rows = count.div_ceil(columns).max(1);
        let half_width = 0.5 * SPACING * columns as f32 + 1.0;
        let wall = |a: (f32, f32), b: (f32, f32)| ShapeSpec::Segment {
            a: Vec2::new(a.0, a.1),
            b: Vec2::new(b.0, b.1),
        };
        let height = 2.0 + SPACING * rows as f32 + 10.0;
        let walls = BodySpec {
            name: Some(String::from("box")),
            kind: BodyKind::Static,
            shapes: vec![
                wall((-half_width, 0.0), (half_width, 0.0)),
                wall((-half_width, 0.0), (-half_width, height)),
                wall((half_width, 0.0), (half_width, height)),
            ],
            ..circle(Vec2::ZERO)
        };
        let grid = GridSpec {
            origin: Vec2::new(-half_width + 0.7, 2.0),
            columns,
            rows,
            spacing: Vec2::splat(SPACING),
            stagger: true,
            body: circle(Vec2::ZERO),
        };
        Scene {
            origin: format!("circle pile of {}", rows * columns),
            bodies: vec![walls],
            grids: vec![grid],
            ..Scene::default()
        }
    }
}

/// A dynamic circle body at `position` with the default material.
fn circle(position: Vec2) -> BodySpec {
    BodySpec {
        name: None,
        kind: BodyKind::Dynamic,
        position,
        angle: 0.0,
        velocity: Vec2::ZERO,
        angular_velocity: 0.0,
        shapes: vec![ShapeSpec::Circle {
            radius: RADIUS,
            center: Vec2::ZERO,
        }],
        material: MaterialSpec::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pile_has_at_least_the_requested_circles_and_is_valid() {
        for count in [1, 29, 30, 1000, 10_000] {
            let scene = Scene::circle_pile(count);
            scene.validate().expect("the pile is a valid scene");
            let circles = scene.body_count() - 1;
            assert!(circles >= count as u64 && circles < count as u64 + 30);
        }
    }

    #[test]
    fn every_circle_starts_inside_the_box() {
        let world = Scene::circle_pile(3000).build_world().unwrap();
        let walls = world.bodies().next().unwrap().shapes().next().unwrap();
        let floor = world.shape(walls).unwrap().aabb();
        for b in world.bodies().skip(1) {
            let p = b.position();
            assert!(p.x - RADIUS > floor.min.x && p.x + RADIUS < floor.max.x && p.y > RADIUS);
        }
    }
}

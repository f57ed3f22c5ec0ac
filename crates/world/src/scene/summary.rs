//! Counts of what a scene holds, computed without expanding its grids.

use carom_shapes::ShapeKind;

use super::spec::{BodySpec, Scene};
use crate::BodyKind;

/// How many bodies and shapes of each kind a scene expands to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SceneSummary {
    /// Static bodies.
    pub static_bodies: u64,
    /// Kinematic bodies.
    pub kinematic_bodies: u64,
    /// Dynamic bodies.
    pub dynamic_bodies: u64,
    /// Circle shapes.
    pub circles: u64,
    /// Segment shapes.
    pub segments: u64,
    /// Stadium (capsule) shapes.
    pub stadiums: u64,
    /// Sector shapes.
    pub sectors: u64,
}

impl SceneSummary {
    /// Counts a scene; counts saturate rather than overflow on scenes far
    /// too big to load.
    pub(super) fn of(scene: &Scene) -> SceneSummary {
        let mut summary = SceneSummary::default();
        for body in &scene.bodies {
            summary.add(body, 1);
        }
        for grid in &scene.grids {
            summary.add(&grid.body, grid.copies());
        }
        summary
    }

    fn add(&mut self, body: &BodySpec, copies: u64) {
        let bodies = match body.kind {
            BodyKind::Static => &mut self.static_bodies,
            BodyKind::Kinematic => &mut self.kinematic_bodies,
            BodyKind::Dynamic => &mut self.dynamic_bodies,
        };
        *bodies = bodies.saturating_add(copies);
        for shape in &body.shapes {
            let shapes = match shape.kind() {
                ShapeKind::Circle => &mut self.circles,
                ShapeKind::Segment => &mut self.segments,
                ShapeKind::Stadium => &mut self.stadiums,
                ShapeKind::Sector => &mut self.sectors,
            };
            *shapes = shapes.saturating_add(copies);
        }
    }

    /// All bodies.
    pub fn bodies(&self) -> u64 {
        [
            self.static_bodies,
            self.kinematic_bodies,
            self.dynamic_bodies,
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }

    /// All shapes.
    pub fn shapes(&self) -> u64 {
        [self.circles, self.segments, self.stadiums, self.sectors]
            .into_iter()
            .fold(0, u64::saturating_add)
    }
}

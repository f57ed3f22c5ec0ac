use std::f32::consts::FRAC_PI_2;

use glam::Vec2;

use super::View;

/// One step of a path, in picture coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum PathStep {
    /// Starts a new sub-path.
    Move(Vec2),
    /// A straight line to the point.
    Line(Vec2),
    /// A cubic Bézier curve: two control points, then the end point.
    Cubic(Vec2, Vec2, Vec2),
    /// Closes the sub-path back to its start.
    Close,
}

/// Builds a path from world-space points, mapping each through a view as
/// it goes, so that the backends only ever see picture coordinates.
///
/// Arcs become cubic Béziers computed in world space: the view is an
/// affine map, which carries a Bézier's control points to those of the
/// mapped curve, so the y flip needs no special care.
pub(crate) struct PathBuilder<'v> {
    view: &'v View,
    steps: Vec<PathStep>,
}

impl<'v> PathBuilder<'v> {
    pub fn new(view: &'v View) -> PathBuilder<'v> {
        PathBuilder {
            view,
            steps: Vec::new(),
        }
    }

    pub fn move_to(&mut self, p: Vec2) -> &mut Self {
        self.steps.push(PathStep::Move(self.view.to_pixel(p)));
        self
    }

    pub fn line_to(&mut self, p: Vec2) -> &mut Self {
        self.steps.push(PathStep::Line(self.view.to_pixel(p)));
        self
    }

    /// Continues along the circle of `radius` about `center` from angle
    /// `start` through `sweep` radians (counter-clockwise when positive).
    /// The path must already stand at the arc's start point.
    pub fn arc(&mut self, center: Vec2, radius: f32, start: f32, sweep: f32) -> &mut Self {
        // Pieces of at most a quarter turn keep the cubic within 0.03 % of
        // the radius of the true circle.
        let pieces = (sweep.abs() / FRAC_PI_2).ceil().max(1.0);
        let step = sweep / pieces;
        // Handle length of the standard cubic approximation of an arc.
        let handle = radius * 4.0 / 3.0 * (step / 4.0).tan();
        let mut angle = start;
        for _ in 0..pieces as u32 {
            let next = angle + step;
            let (from, to) = (Vec2::from_angle(angle), Vec2::from_angle(next));
            let c1 = center + from * radius + from.perp() * handle;
            let c2 = center + to * radius - to.perp() * handle;
            let end = center + to * radius;
            self.steps.push(PathStep::Cubic(
                self.view.to_pixel(c1),
                self.view.to_pixel(c2),
                self.view.to_pixel(end),
            ));
            angle = next;
        }
        self
    }

    pub fn close(&mut self) -> &mut Self {
        self.steps.push(PathStep::Close);
        self
    }

    pub fn finish(&mut self) -> Vec<PathStep> {
        std::mem::take(&mut self.steps)
    }
}

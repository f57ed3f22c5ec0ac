use crate::{Circle, Sector, Segment, Stadium};

/// Any carom shape, in its own frame.
///
/// An enum rather than a trait object: the set of shapes is closed, matching
/// on it is cheap, and contact dispatch needs to see both kinds at once.
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

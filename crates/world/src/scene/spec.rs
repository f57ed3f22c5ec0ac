//! The data a scene file holds, exactly as written: the serde side of the
//! format. Every optional field carries the default the format documents.

use carom_shapes::{Circle, Sector, Segment, Shape, ShapeError, ShapeKind, Stadium};
use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::{BodyDef, BodyKind, Material, WorldSettings};

/// A whole scene: world settings, a run length, and the bodies.
///
/// The fields are public so that a scene can be built or edited in code;
/// [`Scene::validate`] (run by every loader and by
/// [`Scene::build_world`]) checks whatever was put in them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Scene", default, deny_unknown_fields)]
pub struct Scene {
    /// Name used in error messages: the file name when loaded from a file.
    #[serde(skip)]
    pub origin: String,
    /// Acceleration of every dynamic body, m/s². Default (0, −10).
    pub gravity: Vec2,
    /// The fixed step, seconds. Default 1/60.
    pub dt: f32,
    /// Solver substeps per step, 1..=64. Default 4.
    pub substeps: u32,
    /// Default number of steps for a run. Default 600.
    pub steps: u64,
    /// Bodies listed one by one; they come first in body order.
    pub bodies: Vec<BodySpec>,
    /// Regular arrays of copies of a template body; they follow `bodies`.
    pub grids: Vec<GridSpec>,
}

impl Default for Scene {
    fn default() -> Self {
        let settings = WorldSettings::default();
        Scene {
            origin: String::from("<scene>"),
            gravity: settings.gravity,
            dt: settings.dt,
            substeps: settings.substeps,
            steps: 600,
            bodies: Vec::new(),
            grids: Vec::new(),
        }
    }
}

/// One body of a scene: `Body(...)` in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Body", deny_unknown_fields)]
pub struct BodySpec {
    /// A label echoed in outputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Static, kinematic or dynamic. Default dynamic.
    #[serde(default)]
    pub kind: BodyKind,
    /// World position of the body origin. Default (0, 0).
    #[serde(default)]
    pub position: Vec2,
    /// Rotation of the body frame, radians. Default 0.
    #[serde(default)]
    pub angle: f32,
    /// Linear velocity, m/s. Default (0, 0).
    #[serde(default)]
    pub velocity: Vec2,
    /// Angular velocity, rad/s. Default 0.
    #[serde(default)]
    pub angular_velocity: f32,
    /// The shapes, in the body frame; at least one.
    pub shapes: Vec<ShapeSpec>,
    /// The material of every shape of the body.
    #[serde(default)]
    pub material: MaterialSpec,
}

impl BodySpec {
    /// The definition of this body placed with its origin at `position`.
    pub fn body_def(&self, position: Vec2) -> BodyDef {
        BodyDef {
            kind: self.kind,
            position,
            angle: self.angle,
            linear_velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            name: self.name.clone(),
            ..BodyDef::default()
        }
    }
}

/// A shape in the body frame: `Circle(...)`, `Segment(...)`, `Stadium(...)`
/// or `Sector(...)` in the file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Shape", deny_unknown_fields)]
pub enum ShapeSpec {
    /// A disc.
    Circle {
        /// Radius, > 0.
        radius: f32,
        /// Centre. Default (0, 0).
        #[serde(default)]
        center: Vec2,
    },
    /// A wall from `a` to `b`, without thickness or mass.
    Segment {
        /// First end.
        a: Vec2,
        /// Second end, distinct from `a`.
        b: Vec2,
    },
    /// Every point within `radius` of the segment `ab` (a capsule).
    Stadium {
        /// First end of the core.
        a: Vec2,
        /// Second end of the core, distinct from `a`.
        b: Vec2,
        /// Radius around the core, > 0.
        radius: f32,
    },
    /// A pie slice from direction `start` sweeping `sweep` counter-clockwise.
    Sector {
        /// Radius, > 0.
        radius: f32,
        /// Direction of the first edge, radians.
        start: f32,
        /// Opening angle in (0, 2π].
        sweep: f32,
        /// Apex. Default (0, 0).
        #[serde(default)]
        center: Vec2,
    },
}

impl ShapeSpec {
    /// Which kind of shape this describes.
    pub fn kind(&self) -> ShapeKind {
        match self {
            ShapeSpec::Circle { .. } => ShapeKind::Circle,
            ShapeSpec::Segment { .. } => ShapeKind::Segment,
            ShapeSpec::Stadium { .. } => ShapeKind::Stadium,
            ShapeSpec::Sector { .. } => ShapeKind::Sector,
        }
    }

    /// Builds the shape; the shape's own constructor decides what is valid.
    pub fn build(&self) -> Result<Shape, ShapeError> {
        Ok(match *self {
            ShapeSpec::Circle { radius, center } => Circle::new(center, radius)?.into(),
            ShapeSpec::Segment { a, b } => Segment::new(a, b)?.into(),
            ShapeSpec::Stadium { a, b, radius } => Stadium::new(a, b, radius)?.into(),
            ShapeSpec::Sector {
                radius,
                start,
                sweep,
                center,
            } => Sector::new(center, radius, start, sweep)?.into(),
        })
    }
}

/// `Material(density, friction, restitution)`: applies to all shapes of a
/// body; every field is optional.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Material", default, deny_unknown_fields)]
pub struct MaterialSpec {
    /// Mass per unit area, kg/m². Default 1.
    pub density: f32,
    /// Coulomb friction coefficient. Default 0.6.
    pub friction: f32,
    /// Coefficient of restitution in [0, 1]. Default 0.
    pub restitution: f32,
}

impl Default for MaterialSpec {
    fn default() -> Self {
        Material::default().into()
    }
}

impl From<MaterialSpec> for Material {
    fn from(spec: MaterialSpec) -> Material {
        Material {
            density: spec.density,
            friction: spec.friction,
            restitution: spec.restitution,
        }
    }
}

impl From<Material> for MaterialSpec {
    fn from(material: Material) -> MaterialSpec {
        MaterialSpec {
            density: material.density,
            friction: material.friction,
            restitution: material.restitution,
        }
    }
}

/// `Grid(...)`: `rows × columns` copies of a template body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Grid", deny_unknown_fields)]
pub struct GridSpec {
    /// Where the copy at row 0, column 0 sits (before the template's own position).
    pub origin: Vec2,
    /// Copies per row, ≥ 1.
    pub columns: u32,
    /// Number of rows, ≥ 1.
    pub rows: u32,
    /// Distance between neighbouring copies: (dx, dy).
    pub spacing: Vec2,
    /// Whether odd rows shift by +dx/2. Default false.
    #[serde(default)]
    pub stagger: bool,
    /// The template every copy is made from.
    pub body: BodySpec,
}

impl GridSpec {
    /// Number of copies, `rows × columns` (cannot overflow a `u64`).
    pub fn copies(&self) -> u64 {
        u64::from(self.rows) * u64::from(self.columns)
    }

    /// World position of the origin of the copy at (`row`, `column`):
    /// `origin + (column·dx [+ dx/2 on odd rows when staggered], row·dy) +
    /// template position`, added in that order in f32 so that every engine
    /// reading the same file places the bodies at the same bits.
    pub fn copy_position(&self, row: u32, column: u32) -> Vec2 {
        let shift = if self.stagger && row % 2 == 1 {
            0.5 * self.spacing.x
        } else {
            0.0
        };
        let x = self.origin.x + column as f32 * self.spacing.x + shift + self.body.position.x;
        let y = self.origin.y + row as f32 * self.spacing.y + self.body.position.y;
        Vec2::new(x, y)
    }
}

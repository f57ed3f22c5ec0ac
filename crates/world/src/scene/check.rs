//! Semantic checks of a parsed scene. Each failure names the place in the
//! file as a path such as `grids[0].body.shapes[1]`.
//!
//! The world's own validation (settings, body definitions, materials) and
//! the shape constructors decide what is valid; this module adds only what
//! is particular to scenes and translates their errors into paths.

use carom_shapes::{Shape, ShapeError, ShapeKind};
use glam::Vec2;

use super::spec::{BodySpec, GridSpec, Scene, ShapeSpec};
use crate::collider::check_reach;
use crate::mass::BodyMass;
use crate::{BodyKind, Material, WorldError, WorldSettings};

/// A failed check: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Problem {
    pub path: String,
    pub message: String,
}

impl Problem {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }

    /// Places a world error under `prefix`: its field, when it names one,
    /// extends the path.
    fn from_world(prefix: &str, error: WorldError) -> Problem {
        match error {
            WorldError::Invalid { field, message } => Problem::new(join(prefix, field), message),
            other => Problem::new(prefix, other.to_string()),
        }
    }
}

/// Checks everything but the body count.
pub(super) fn check_scene(scene: &Scene) -> Result<(), Problem> {
    settings_of(scene)
        .validate()
        .map_err(|e| Problem::from_world("", e))?;
    for (index, body) in scene.bodies.iter().enumerate() {
        check_body(&format!("bodies[{index}]"), body)?;
    }
    for (index, grid) in scene.grids.iter().enumerate() {
        check_grid(&format!("grids[{index}]"), grid)?;
    }
    Ok(())
}

/// The world settings a scene asks for; everything it does not mention
/// keeps the world's default.
pub(super) fn settings_of(scene: &Scene) -> WorldSettings {
    WorldSettings {
        gravity: scene.gravity,
        dt: scene.dt,
        substeps: scene.substeps,
        ..WorldSettings::default()
    }
}

fn check_body(path: &str, body: &BodySpec) -> Result<(), Problem> {
    if body.shapes.is_empty() {
        return Err(Problem::new(
            join(path, "shapes"),
            "a body needs at least one shape",
        ));
    }
    body.body_def(body.position)
        .validate()
        .map_err(|e| Problem::from_world(path, e))?;
    let mut built = Vec::with_capacity(body.shapes.len());
    for (index, shape) in body.shapes.iter().enumerate() {
        let place = || format!("{path}.shapes[{index}]");
        let one = shape
            .build()
            .map_err(|e| Problem::new(place(), shape_message(shape, e)))?;
        check_reach(&one).map_err(|e| match e {
            WorldError::Invalid { message, .. } => {
                Problem::new(place(), format!("{} {message}", shape_name(shape.kind())))
            }
            other => Problem::new(place(), other.to_string()),
        })?;
        built.push((one, body.material.density));
    }
    Material::from(body.material)
        .validate()
        .map_err(|e| Problem::from_world(path, e))?;
    if body.kind == BodyKind::Dynamic {
        check_has_mass(path, body, &built)?;
    }
    Ok(())
}

/// A dynamic body without mass could not respond to anything; the world
/// would have to invent a mass for it, so the scene is refused instead.
/// `built` holds the body's shapes, each with the body's density.
fn check_has_mass(path: &str, body: &BodySpec, built: &[(Shape, f32)]) -> Result<(), Problem> {
    if body.shapes.iter().all(|s| s.kind() == ShapeKind::Segment) {
        return Err(Problem::new(
            path,
            "a dynamic body needs mass, but segments have none: \
             add a circle, stadium or sector, or make the body Static",
        ));
    }
    if body.material.density == 0.0 {
        return Err(Problem::new(
            join(path, "material.density"),
            "a dynamic body needs mass, but the density is 0",
        ));
    }
    BodyMass::of(built)
        .check_dynamic()
        .map_err(|e| Problem::from_world(path, e))
}

/// The shape's own message, led by the shape's name when it does not say
/// it already ("radius must be > 0" → "circle radius must be > 0").
fn shape_message(shape: &ShapeSpec, error: ShapeError) -> String {
    let name = shape_name(shape.kind());
    let message = error.to_string();
    if message.starts_with(name) {
        message
    } else {
        format!("{name} {message}")
    }
}

/// The lower-case name of a shape kind, as messages use it.
fn shape_name(kind: ShapeKind) -> &'static str {
    match kind {
        ShapeKind::Circle => "circle",
        ShapeKind::Segment => "segment",
        ShapeKind::Stadium => "stadium",
        ShapeKind::Sector => "sector",
    }
}

fn check_grid(path: &str, grid: &GridSpec) -> Result<(), Problem> {
    check_count(&join(path, "rows"), grid.rows)?;
    check_count(&join(path, "columns"), grid.columns)?;
    check_finite_point(&join(path, "origin"), grid.origin)?;
    check_finite_point(&join(path, "spacing"), grid.spacing)?;
    check_body(&join(path, "body"), &grid.body)?;
    check_copies_finite(path, grid)
}

fn check_count(path: &str, count: u32) -> Result<(), Problem> {
    if count == 0 {
        Err(Problem::new(path, "must be >= 1, got 0"))
    } else {
        Ok(())
    }
}

fn check_finite_point(path: &str, p: Vec2) -> Result<(), Problem> {
    if p.is_finite() {
        Ok(())
    } else {
        Err(Problem::new(
            path,
            format!("must be finite, got {}", show_point(p)),
        ))
    }
}

/// A copy's position grows monotonically along a row and along the rows of
/// one parity, so if the first and last two rows at both ends are finite,
/// every copy is: checking them spares looking at every copy.
fn check_copies_finite(path: &str, grid: &GridSpec) -> Result<(), Problem> {
    let last_row = grid.rows - 1;
    let rows = [0, 1.min(last_row), last_row.saturating_sub(1), last_row];
    for row in rows {
        for column in [0, grid.columns - 1] {
            let p = grid.copy_position(row, column);
            if !p.is_finite() {
                return Err(Problem::new(
                    path,
                    format!(
                        "the copy at row {row}, column {column} lands at {}; \
                         positions must be finite",
                        show_point(p)
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn show_point(p: Vec2) -> String {
    format!("({}, {})", p.x, p.y)
}

fn join(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_string()
    } else {
        format!("{prefix}.{field}")
    }
}

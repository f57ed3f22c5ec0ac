//! Scene files: a whole world described in RON, loaded, checked and built.
//!
//! ```ron
//! Scene(
//!     gravity: (0.0, -10.0),   // default (0, -10)
//!     dt: 0.016666668,         // default 1/60
//!     substeps: 4,             // default 4
//!     steps: 600,              // default run length, 600
//!     bodies: [
//!         Body(name: "floor", kind: Static,
//!              shapes: [Segment(a: (-10.0, 0.0), b: (10.0, 0.0))]),
//!     ],
//!     grids: [
//!         Grid(origin: (-5.0, 1.0), columns: 20, rows: 10, spacing: (0.5, 0.5),
//!              stagger: true, body: Body(shapes: [Circle(radius: 0.2)])),
//!     ],
//! )
//! ```
//!
//! A `Body` has `name`, `kind` (`Static`, `Kinematic` or `Dynamic`, the
//! default), `position`, `angle`, `velocity`, `angular_velocity`,
//! `material: Material(density, friction, restitution)` and `shapes`, a
//! non-empty list of `Circle(radius, center)`, `Segment(a, b)`,
//! `Stadium(a, b, radius)` and `Sector(radius, start, sweep, center)`; only
//! `shapes` is required. A `Grid` makes `rows × columns` copies of its
//! template `body`; the copy at (row r, column c) sits at
//! `origin + (c·dx, r·dy)` plus the template's position, odd rows shifted by
//! `dx/2` when `stagger` is set.
//!
//! Body order, which is the `index` of every output: `bodies` in file order,
//! then each grid in file order, row-major.
//!
//! ```
//! use carom::scene::Scene;
//!
//! let text = "Scene(steps: 60, grids: [Grid(origin: (0.0, 1.0), columns: 3, rows: 2,
//!             spacing: (1.0, 1.0), body: Body(shapes: [Circle(radius: 0.25)]))])";
//! let scene = Scene::from_str(text, "three-by-two.ron")?;
//! assert_eq!(scene.body_count(), 6);
//!
//! let mut world = scene.build_world()?;
//! for _ in 0..scene.steps {
//!     world.step();
//! }
//! assert_eq!(world.step_count(), 60);
//! # Ok::<(), carom::scene::SceneError>(())
//! ```

mod check;
mod expand;
mod pile;
mod spec;
mod summary;

use std::path::Path;

use thiserror::Error;

pub use expand::{Placed, Source};
pub use spec::{BodySpec, GridSpec, MaterialSpec, Scene, ShapeSpec};
pub use summary::SceneSummary;

use crate::{Material, World, WorldError, WorldSettings};

/// Most bodies a scene may expand to.
pub const BODY_LIMIT: u64 = 10_000_000;

/// Most shapes a scene may expand to: a small file with a many-shaped grid
/// template must not be able to exhaust memory either.
pub const SHAPE_LIMIT: u64 = 40_000_000;

/// Why a scene could not be loaded or built. Every message starts with the
/// file (the scene's origin).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SceneError {
    /// The file could not be read.
    #[error("{file}: cannot read the scene: {source}")]
    Read {
        /// The file.
        file: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The text is not RON, or does not have the shape of a scene: a
    /// misspelt or unknown field, a value of the wrong type…
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// A value is out of range.
    #[error("{file}: {path}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// Where in the scene, for example `bodies[2].shapes[0]`.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The grids expand to more bodies or shapes than a scene may hold.
    #[error("{file}: the scene expands to {count} {what}, more than the limit of {limit}")]
    TooLarge {
        /// The file.
        file: String,
        /// `"bodies"` or `"shapes"`.
        what: &'static str,
        /// How many the scene asks for.
        count: u128,
        /// The limit: [`BODY_LIMIT`] or [`SHAPE_LIMIT`].
        limit: u64,
    },
}

impl Scene {
    /// Parses and validates a scene. `origin` names the text in error
    /// messages, usually the file name.
    pub fn from_str(text: &str, origin: &str) -> Result<Scene, SceneError> {
        let options = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let mut scene: Scene = options.from_str(text).map_err(|e| SceneError::Syntax {
            file: origin.to_string(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        })?;
        scene.origin = origin.to_string();
        scene.validate()?;
        Ok(scene)
    }

    /// Reads, parses and validates a scene file.
    pub fn load(path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => Scene::from_str(&text, &origin),
            Err(source) => Err(SceneError::Read {
                file: origin,
                source,
            }),
        }
    }

    /// Checks every value and the size of the expanded scene, without
    /// expanding it.
    pub fn validate(&self) -> Result<(), SceneError> {
        check::check_scene(self).map_err(|p| self.invalid(p.path, p.message))?;
        self.check_limit("bodies", expand::expanded_count(self), BODY_LIMIT)?;
        self.check_limit("shapes", expand::expanded_shape_count(self), SHAPE_LIMIT)
    }

    /// Validates the scene and builds its world, bodies in body order.
    pub fn build_world(&self) -> Result<World, SceneError> {
        self.validate()?;
        let mut world = World::new(self.world_settings())
            .map_err(|e| self.invalid(String::from("scene"), e.to_string()))?;
        // `validate` bounds the counts, so they fit in memory sizes.
        let summary = self.summary();
        world.reserve(summary.bodies() as usize, summary.shapes() as usize);
        for placed in self.expand() {
            add_placed(&mut world, &placed)
                .map_err(|e| self.invalid(placed.source.to_string(), e.to_string()))?;
        }
        Ok(world)
    }

    /// The world settings the scene asks for; the world's defaults for
    /// everything a scene does not set.
    pub fn world_settings(&self) -> WorldSettings {
        check::settings_of(self)
    }

    /// Every body of the expanded scene in body order, lazily: the grids are
    /// never stored expanded.
    pub fn expand(&self) -> impl Iterator<Item = Placed<'_>> + '_ {
        expand::placements(self)
    }

    /// Number of bodies the scene expands to, counted without expanding it
    /// (saturating at `u64::MAX` for scenes far beyond [`BODY_LIMIT`]).
    pub fn body_count(&self) -> u64 {
        u64::try_from(expand::expanded_count(self)).unwrap_or(u64::MAX)
    }

    /// Bodies and shapes by kind, counted without expanding the scene.
    pub fn summary(&self) -> SceneSummary {
        SceneSummary::of(self)
    }

    fn invalid(&self, path: String, message: String) -> SceneError {
        SceneError::Invalid {
            file: self.origin.clone(),
            path,
            message,
        }
    }

    fn check_limit(&self, what: &'static str, count: u128, limit: u64) -> Result<(), SceneError> {
        if count <= u128::from(limit) {
            return Ok(());
        }
        Err(SceneError::TooLarge {
            file: self.origin.clone(),
            what,
            count,
            limit,
        })
    }
}

pub(crate) fn add_placed(world: &mut World, placed: &Placed<'_>) -> Result<(), WorldError> {
    let body = world.create_body(placed.spec.body_def(placed.position))?;
    let material = Material::from(placed.spec.material);
    for shape in &placed.spec.shapes {
        world.add_shape(body, shape.build()?, material)?;
    }
    Ok(())
}

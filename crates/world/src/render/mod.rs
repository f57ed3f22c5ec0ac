//! Pictures of a world: SVG documents, PNG images and animated GIFs.
//!
//! Every shape is drawn as it is: circles with a mark from near the centre
//! to the rim along the body's x axis (so rolling shows), segments as lines,
//! stadiums as two half circles joined by straight sides, and sectors as
//! pie slices. Bodies are coloured by kind (see [`Palette`] for the colours);
//! contact points and normals can be laid over the top. Pictures are
//! anti-aliased, and the same world with the same options always gives the
//! same bytes.
//!
//! A [`View`] decides which part of the world is shown: the rectangle given
//! in [`RenderOptions::view`], or by default the bounds of every shape with a
//! small margin. The world's y axis points up; the picture's points down.
//!
//! ```
//! use carom::render::{render_pixmap, render_svg, RenderOptions};
//! use carom::{BodyDef, Material, World, WorldSettings};
//! use carom::shapes::{Circle, Segment, Vec2};
//!
//! let mut world = World::new(WorldSettings::default())?;
//! let ground = world.create_body(BodyDef::fixed())?;
//! let floor = Segment::new(Vec2::new(-4.0, 0.0), Vec2::new(4.0, 0.0))?;
//! world.add_shape(ground, floor, Material::default())?;
//! let ball = world.create_body(BodyDef::dynamic().position(0.0, 1.0))?;
//! world.add_shape(ball, Circle::new(Vec2::ZERO, 0.5)?, Material::default())?;
//!
//! let options = RenderOptions { width: 320, contacts: true, ..RenderOptions::default() };
//! let svg = render_svg(&world, &options)?;
//! assert!(svg.starts_with("<svg"));
//! let image = render_pixmap(&world, &options)?;
//! assert_eq!(image.width(), 320);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod animation;
mod format;
mod outline;
mod palette;
mod picture;
mod raster;
mod svg;
mod view;

use std::path::Path;

use carom_shapes::Aabb;
use thiserror::Error;
pub use tiny_skia::{Pixmap, PixmapMut};

pub use animation::GifRecorder;
pub use format::{parse_rect, ImageFormat};
pub use palette::{BodyStyle, Palette, Rgb};
pub use view::{View, MAX_SIDE};

use crate::World;

/// Width of a picture when none is asked for, pixels.
pub const DEFAULT_WIDTH: u32 = 640;

/// What to draw and at what size.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// Picture width, pixels. Default [`DEFAULT_WIDTH`].
    pub width: u32,
    /// Picture height, pixels; `None` (the default) follows the aspect ratio
    /// of the view.
    pub height: Option<u32>,
    /// The world rectangle to show; `None` (the default) fits every shape
    /// with a small margin.
    pub view: Option<Aabb>,
    /// Whether to draw the last step's contact points and normals.
    pub contacts: bool,
    /// The colours.
    pub palette: Palette,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            width: DEFAULT_WIDTH,
            height: None,
            view: None,
            contacts: false,
            palette: Palette::default(),
        }
    }
}

impl RenderOptions {
    /// The view these options give for `world`.
    pub fn view_of(&self, world: &World) -> Result<View, RenderError> {
        match (self.view, self.height) {
            (Some(rect), Some(height)) => View::new(rect, self.width, height),
            (Some(rect), None) => View::with_width(rect, self.width),
            (None, height) => View::fit(world, self.width, height),
        }
    }
}

/// Why a picture could not be made.
///
/// [`RenderError::is_bad_input`] tells the caller's mistakes (a bad view,
/// size or format) from failures while writing.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The world rectangle to show is empty or not finite.
    #[error("{0}")]
    BadView(String),
    /// The output file's extension names no picture format carom writes.
    #[error("{0}")]
    BadFormat(String),
    /// The picture would have no pixels, or too many.
    #[error("{0}")]
    BadSize(String),
    /// The PNG encoder failed.
    #[error("cannot encode the PNG: {0}")]
    Png(String),
    /// The GIF encoder (or the writer under it) failed.
    #[error("cannot write the GIF: {0}")]
    Gif(#[from] gif::EncodingError),
    /// The output file could not be written.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
}

impl RenderError {
    /// Whether the request itself was wrong (view, size, format), as
    /// opposed to a failure while encoding or writing.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            RenderError::BadView(_) | RenderError::BadSize(_) | RenderError::BadFormat(_)
        )
    }
}

/// The world as an SVG document: one `<path>` per shape, in shape order,
/// with `class` naming the body kind and the shape kind (`"dynamic
/// circle"`), then one per contact point (`"contact point"`) when asked for.
pub fn render_svg(world: &World, options: &RenderOptions) -> Result<String, RenderError> {
    let view = options.view_of(world)?;
    let marks = marks(world, &view, options);
    Ok(svg::document(&view, options.palette.background, marks))
}

/// The world as an RGBA image. Every pixel is opaque, so the premultiplied
/// bytes of [`Pixmap::data`] are plain RGBA.
pub fn render_pixmap(world: &World, options: &RenderOptions) -> Result<Pixmap, RenderError> {
    let view = options.view_of(world)?;
    let mut pixmap = Pixmap::new(view.width(), view.height()).ok_or_else(|| {
        RenderError::BadSize(format!(
            "cannot hold a {}×{} picture in memory",
            view.width(),
            view.height()
        ))
    })?;
    draw_world(&mut pixmap.as_mut(), world, &view, options);
    Ok(pixmap)
}

/// Draws the world onto an existing canvas through `view`, for callers that
/// redraw every frame (a viewer, a recorder). Only the `contacts` and
/// `palette` fields of `options` are used: the view decides the framing.
pub fn draw_world(canvas: &mut PixmapMut<'_>, world: &World, view: &View, options: &RenderOptions) {
    raster::paint(
        canvas,
        options.palette.background,
        marks(world, view, options),
    );
}

/// The world as the bytes of a PNG file.
pub fn encode_png(world: &World, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    render_pixmap(world, options)?
        .encode_png()
        .map_err(|e| RenderError::Png(e.to_string()))
}

/// Draws the world and writes it to `path` as a PNG file.
pub fn save_png(
    world: &World,
    options: &RenderOptions,
    path: impl AsRef<Path>,
) -> Result<(), RenderError> {
    let bytes = encode_png(world, options)?;
    let path = path.as_ref();
    std::fs::write(path, bytes).map_err(|source| RenderError::Write {
        path: path.display().to_string(),
        source,
    })
}

/// Shapes first, then the contact overlay on top of them.
fn marks<'a>(
    world: &'a World,
    view: &'a View,
    options: &'a RenderOptions,
) -> impl Iterator<Item = picture::Mark> + 'a {
    let palette = options.palette;
    let shapes = picture::shape_marks(world, view, move |kind, sleeping| {
        palette.style_of_body(kind, sleeping)
    });
    let contacts = options
        .contacts
        .then(|| picture::contact_marks(world, view, palette.contact));
    shapes.chain(contacts.into_iter().flatten())
}

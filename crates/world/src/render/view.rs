use carom_shapes::Aabb;
use glam::Vec2;

use super::RenderError;
use crate::{BodyKind, World};

/// The largest width or height of a picture, in pixels. A side this long
/// already takes 256 MiB of RGBA at a square aspect.
pub const MAX_SIDE: u32 = 8192;

/// Blank space left around the shapes when a view is fitted to them, as a
/// fraction of the larger side of their bounds.
const FIT_MARGIN: f32 = 0.05;

/// Maps a rectangle of the world onto the pixels of a picture.
///
/// The world's y axis points up and an image's points down, so the map
/// flips y. The scale is the same along both axes (circles stay round); when
/// the rectangle and the picture have different aspect ratios the rectangle
/// is centred and the picture shows more of the world along one axis.
///
/// Pixel `(i, j)` covers the square from `(i, j)` to `(i + 1, j + 1)` in
/// picture coordinates, so its centre is at `(i + 0.5, j + 0.5)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    width: u32,
    height: u32,
    /// World point drawn at the centre of the picture.
    center: Vec2,
    /// Pixels per metre.
    scale: f32,
}

impl View {
    /// A `width × height` picture of the world rectangle `rect`.
    ///
    /// Fails when a corner is not finite, the rectangle is empty, or a side
    /// of the picture is 0 or above [`MAX_SIDE`].
    pub fn new(rect: Aabb, width: u32, height: u32) -> Result<View, RenderError> {
        check_rect(rect)?;
        check_side("width", width)?;
        check_side("height", height)?;
        let size = rect.max - rect.min;
        let scale = (width as f32 / size.x).min(height as f32 / size.y);
        if !scale.is_finite() || scale <= 0.0 {
            return Err(RenderError::BadView(format!(
                "the view {}..{} by {}..{} cannot be drawn at {width}×{height} pixels",
                rect.min.x, rect.max.x, rect.min.y, rect.max.y
            )));
        }
        Ok(View {
            width,
            height,
            center: (rect.min + rect.max) * 0.5,
            scale,
        })
    }

    /// A picture `width` pixels wide of the world rectangle `rect`, as tall
    /// as the rectangle's aspect ratio asks (at most [`MAX_SIDE`]; a taller
    /// rectangle is shown whole with blank space beside it).
    pub fn with_width(rect: Aabb, width: u32) -> Result<View, RenderError> {
        check_rect(rect)?;
        let size = rect.max - rect.min;
        let height = (width as f32 * size.y / size.x)
            .round()
            .clamp(1.0, MAX_SIDE as f32);
        View::new(rect, width, height as u32)
    }

    /// A view of everything in `world` with a small margin: `width` pixels
    /// wide and `height` tall, or as tall as the content's aspect ratio asks
    /// when `height` is `None`.
    pub fn fit(world: &World, width: u32, height: Option<u32>) -> Result<View, RenderError> {
        let content = content_bounds(world);
        let margin = FIT_MARGIN * (content.max - content.min).max_element();
        let rect = content.expanded(margin);
        if !(rect.max - rect.min).is_finite() {
            return Err(RenderError::BadView(format!(
                "the shapes span ({:e}, {:e})..({:e}, {:e}), too far for one picture: \
                 give a view of a part of them",
                content.min.x, content.min.y, content.max.x, content.max.y
            )));
        }
        match height {
            Some(height) => View::new(rect, width, height),
            None => View::with_width(rect, width),
        }
    }

    /// Picture width, pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Picture height, pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Pixels per metre.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// Where the world point `p` lands in the picture (y down).
    pub fn to_pixel(&self, p: Vec2) -> Vec2 {
        let offset = (p - self.center) * self.scale;
        Vec2::new(
            self.width as f32 * 0.5 + offset.x,
            self.height as f32 * 0.5 - offset.y,
        )
    }

    /// The world point drawn at picture position `pixel`: the inverse of
    /// [`View::to_pixel`].
    pub fn to_world(&self, pixel: Vec2) -> Vec2 {
        let offset = Vec2::new(
            pixel.x - self.width as f32 * 0.5,
            self.height as f32 * 0.5 - pixel.y,
        );
        self.center + offset / self.scale
    }

    /// The world rectangle the whole picture shows.
    pub fn world_rect(&self) -> Aabb {
        let a = self.to_world(Vec2::new(0.0, self.height as f32));
        let b = self.to_world(Vec2::new(self.width as f32, 0.0));
        Aabb::new(a, b)
    }
}

/// The bounds of every shape, plus, for each turning kinematic body, the
/// disc its shapes sweep in a whole turn: a view fitted at the first frame
/// of an animation must not cut off a drum's corners later.
fn content_bounds(world: &World) -> Aabb {
    let shape_bounds = world.shapes().map(|s| s.aabb());
    let turning = world
        .bodies()
        .filter(|b| b.kind() == BodyKind::Kinematic && b.angular_velocity() != 0.0)
        .map(|body| {
            let center = body.center_of_mass();
            let local_center = body.transform().apply_inverse(center);
            let reach = body
                .shapes()
                .filter_map(|h| world.shape(h).ok())
                .map(|s| s.shape().max_extent(local_center))
                .fold(0.0, f32::max);
            Aabb::around_circle(center, reach)
        });
    shape_bounds
        .chain(turning)
        .filter(|b| b.min.is_finite() && b.max.is_finite())
        .reduce(|a, b| a.union(&b))
        .unwrap_or(Aabb::new(Vec2::splat(-1.0), Vec2::splat(1.0)))
}

fn check_rect(rect: Aabb) -> Result<(), RenderError> {
    // Finite corners can still be farther apart than f32 holds.
    let size = rect.max - rect.min;
    let finite = rect.min.is_finite() && rect.max.is_finite() && size.is_finite();
    if finite && size.x > 0.0 && size.y > 0.0 {
        return Ok(());
    }
    Err(RenderError::BadView(format!(
        "the view needs finite corners with x0 < x1 and y0 < y1, and sides within \
         f32's range, got ({}, {})..({}, {})",
        rect.min.x, rect.min.y, rect.max.x, rect.max.y
    )))
}

fn check_side(name: &str, pixels: u32) -> Result<(), RenderError> {
    if (1..=MAX_SIDE).contains(&pixels) {
        return Ok(());
    }
    Err(RenderError::BadSize(format!(
        "the picture {name} must lie in 1..={MAX_SIDE} pixels, got {pixels}"
    )))
}

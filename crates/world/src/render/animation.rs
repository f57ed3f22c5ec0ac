use std::io::Write;

use gif::{Encoder, Frame, Repeat};
use tiny_skia::Pixmap;

use super::{draw_world, RenderError, RenderOptions, View};
use crate::World;

/// Trade-off of the gif crate's NeuQuant palette search, 1 (best) to 30
/// (fastest); 10 is its own suggested middle, and plenty for flat colours.
const QUANTIZE_SPEED: i32 = 10;

/// Shortest frame delay written, centiseconds. Browsers show delays below
/// 2 cs as 10 cs, which would play the animation five times too slowly.
const MIN_DELAY_CS: u16 = 2;

/// Records frames of a world into an animated GIF that loops forever.
///
/// The view is fixed when the recorder is made (fitted to the world as it
/// is then, unless the options give one), so the camera stays still while
/// bodies move; turning kinematic bodies are fitted with their whole sweep.
///
/// ```
/// use carom::render::{GifRecorder, RenderOptions};
/// use carom::{BodyDef, Material, World, WorldSettings};
/// use carom::shapes::{Circle, Vec2};
///
/// let mut world = World::new(WorldSettings::default())?;
/// let ball = world.create_body(BodyDef::dynamic())?;
/// world.add_shape(ball, Circle::new(Vec2::ZERO, 0.5)?, Material::default())?;
///
/// let options = RenderOptions { width: 64, ..RenderOptions::default() };
/// let every = 5;
/// let frame_seconds = every as f32 * world.settings().dt;
/// let mut gif = GifRecorder::new(Vec::new(), &world, &options, frame_seconds)?;
/// for step in 1..=30 {
///     world.step();
///     if step % every == 0 {
///         gif.add_frame(&world)?;
///     }
/// }
/// assert_eq!(gif.frame_count(), 6);
/// let bytes = gif.finish()?;
/// assert!(bytes.starts_with(b"GIF89a"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GifRecorder<W: Write> {
    encoder: Encoder<W>,
    view: View,
    options: RenderOptions,
    canvas: Pixmap,
    delay_cs: u16,
    frames: usize,
}

impl<W: Write> GifRecorder<W> {
    /// A recorder writing to `writer`, framed by `options` against `world`.
    /// `frame_seconds` is the simulated time between two frames (for example
    /// `every · dt`); each frame is shown that long.
    pub fn new(
        writer: W,
        world: &World,
        options: &RenderOptions,
        frame_seconds: f32,
    ) -> Result<GifRecorder<W>, RenderError> {
        let view = options.view_of(world)?;
        let (width, height) = (gif_side(view.width())?, gif_side(view.height())?);
        let canvas = Pixmap::new(view.width(), view.height()).ok_or_else(|| too_large(&view))?;
        let mut encoder = Encoder::new(writer, width, height, &[])?;
        encoder.set_repeat(Repeat::Infinite)?;
        Ok(GifRecorder {
            encoder,
            view,
            options: options.clone(),
            canvas,
            delay_cs: delay_centiseconds(frame_seconds),
            frames: 0,
        })
    }

    /// The view every frame is drawn with.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// Draws the world as it is now and appends it as the next frame.
    pub fn add_frame(&mut self, world: &World) -> Result<(), RenderError> {
        draw_world(&mut self.canvas.as_mut(), world, &self.view, &self.options);
        // The canvas is opaque, so its premultiplied bytes are plain RGBA.
        let mut rgba = self.canvas.data().to_vec();
        let (width, height) = (self.view.width() as u16, self.view.height() as u16);
        let mut frame = Frame::from_rgba_speed(width, height, &mut rgba, QUANTIZE_SPEED);
        frame.delay = self.delay_cs;
        self.encoder.write_frame(&frame)?;
        self.frames += 1;
        Ok(())
    }

    /// Frames added so far.
    pub fn frame_count(&self) -> usize {
        self.frames
    }

    /// Ends the animation and hands back the writer.
    pub fn finish(self) -> Result<W, RenderError> {
        Ok(self.encoder.into_inner()?)
    }
}

fn delay_centiseconds(frame_seconds: f32) -> u16 {
    let cs = (frame_seconds * 100.0).round();
    if cs.is_nan() {
        return MIN_DELAY_CS;
    }
    cs.clamp(MIN_DELAY_CS as f32, u16::MAX as f32) as u16
}

fn gif_side(pixels: u32) -> Result<u16, RenderError> {
    u16::try_from(pixels).map_err(|_| {
        RenderError::BadSize(format!(
            "a GIF side must be at most {} pixels, got {pixels}",
            u16::MAX
        ))
    })
}

fn too_large(view: &View) -> RenderError {
    RenderError::BadSize(format!(
        "cannot hold a {}×{} picture in memory",
        view.width(),
        view.height()
    ))
}

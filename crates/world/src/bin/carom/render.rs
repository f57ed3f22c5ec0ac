//! `carom render`: draws a scene to SVG, PNG or an animated GIF.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use carom::render::{
    encode_png, parse_rect, render_svg, GifRecorder, ImageFormat, RenderError, RenderOptions,
    DEFAULT_WIDTH,
};
use carom::shapes::Aabb;
use carom::World;
use clap::Args;

use crate::failure::Failure;
use crate::run::advance;
use crate::setup::{Setup, StepArgs};

/// Most frames the animation gets when `--every` is not given.
const MAX_DEFAULT_FRAMES: u64 = 120;

/// Arguments of `carom render`.
#[derive(Args)]
pub struct RenderArgs {
    #[command(flatten)]
    common: StepArgs,
    /// The picture to write: `.svg` or `.png` draws the last step, `.gif`
    /// animates the run.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Steps between two GIF frames [default: enough for at most 120 frames].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    every: Option<u64>,
    /// Draw contact points and normals.
    #[arg(long)]
    contacts: bool,
    /// World rectangle to show, lower-left then upper-right corner
    /// [default: fit every shape].
    #[arg(long, value_name = "X0,Y0,X1,Y1", allow_hyphen_values = true,
          value_parser = parse_view)]
    view: Option<Aabb>,
    /// Picture width in pixels; the height follows the view.
    #[arg(long, value_name = "W", default_value_t = DEFAULT_WIDTH,
          value_parser = clap::value_parser!(u32).range(16..=4096))]
    width: u32,
}

impl From<RenderError> for Failure {
    fn from(error: RenderError) -> Failure {
        if error.is_bad_input() {
            Failure::BadInput(error.to_string())
        } else {
            Failure::Runtime(error.to_string())
        }
    }
}

/// Runs `carom render`: loads the scene, steps it and writes the picture,
/// then prints one line saying what was written.
pub fn render(args: &RenderArgs) -> Result<(), Failure> {
    let format = ImageFormat::from_path(&args.out)?;
    let mut setup = Setup::from_args(&args.common)?;
    let steps = setup.steps;
    let options = RenderOptions {
        width: args.width,
        view: args.view,
        contacts: args.contacts,
        ..RenderOptions::default()
    };
    // Check the framing and the output file before a possibly long run.
    options.view_of(&setup.world)?;
    let out = create(&args.out)?;
    let world = &mut setup.world;
    let summary = match format {
        ImageFormat::Svg => {
            setup.pool.install(|| advance(world, steps, None))?;
            write_all(out, &args.out, render_svg(world, &options)?.as_bytes())?;
            format!("step {steps}")
        }
        ImageFormat::Png => {
            setup.pool.install(|| advance(world, steps, None))?;
            write_all(out, &args.out, &encode_png(world, &options)?)?;
            format!("step {steps}")
        }
        ImageFormat::Gif => {
            let every = args.every.unwrap_or_else(|| default_every(steps));
            let frames = setup
                .pool
                .install(|| record_gif(world, steps, every, &options, out, &args.out))?;
            format!("{frames} frames over {steps} steps, one every {every}")
        }
    };
    writeln!(
        std::io::stdout().lock(),
        "wrote {}: {summary}",
        args.out.display()
    )
    .map_err(|e| Failure::writing("the summary", e))
}

fn parse_view(text: &str) -> Result<Aabb, String> {
    parse_rect(text).map_err(|e| e.to_string())
}

/// The smallest frame interval that keeps the animation within
/// [`MAX_DEFAULT_FRAMES`] frames after the first.
fn default_every(steps: u64) -> u64 {
    steps.div_ceil(MAX_DEFAULT_FRAMES).max(1)
}

/// Frames at step 0, every `every` steps, and the last step; returns how
/// many were written.
fn record_gif(
    world: &mut World,
    steps: u64,
    every: u64,
    options: &RenderOptions,
    out: BufWriter<File>,
    path: &Path,
) -> Result<usize, Failure> {
    let frame_seconds = every as f32 * world.settings().dt;
    let mut gif = GifRecorder::new(out, world, options, frame_seconds)?;
    gif.add_frame(world)?;
    for step in 1..=steps {
        world.step();
        if step % every == 0 || step == steps {
            gif.add_frame(world)?;
        }
    }
    let frames = gif.frame_count();
    gif.finish()?.flush().map_err(|e| write_failure(path, e))?;
    Ok(frames)
}

fn create(path: &Path) -> Result<BufWriter<File>, Failure> {
    File::create(path)
        .map(BufWriter::new)
        .map_err(|e| write_failure(path, e))
}

fn write_all(mut out: BufWriter<File>, path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| write_failure(path, e))
}

fn write_failure(path: &Path, error: std::io::Error) -> Failure {
    Failure::writing(&path.display().to_string(), error)
}

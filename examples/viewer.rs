//! An interactive window onto a scene.
//!
//! ```text
//! cargo run --release --example viewer -- scenes/hopper.ron
//! ```
//!
//! Keys: space pauses and resumes, `S` or `.` takes one step while paused,
//! `R` reloads the scene from its file, `C` shows or hides contacts, Escape
//! quits. Drag a dynamic body with the left mouse button. The title shows
//! the step count and the mean time of one step.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use carom::render::{draw_world, Pixmap, RenderOptions, View};
use carom::scene::Scene;
use carom::shapes::Vec2;
use carom::{BodyHandle, BodyKind, World};
use minifb::{Key, KeyRepeat, MouseButton, MouseMode, Window, WindowOptions};

/// Window width, pixels; the height follows the scene's aspect ratio.
const WINDOW_WIDTH: u32 = 960;
/// Bounds of the window height, pixels, for very flat or very tall scenes.
const MIN_HEIGHT: u32 = 360;
const MAX_HEIGHT: u32 = 900;
/// Longest frame fed to the world, seconds: after a stall (a dragged window,
/// a debugger) the simulation resumes instead of racing to catch up.
const MAX_FRAME_SECONDS: f32 = 0.1;
/// Fastest a dragged body is moved, m/s, so a flick of the mouse cannot
/// fling it through the scene.
const MAX_DRAG_SPEED: f32 = 50.0;
/// How often the title is rewritten, seconds.
const TITLE_PERIOD: f32 = 0.25;
/// Weight of the newest sample in the smoothed step time.
const SMOOTHING: f64 = 0.1;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: viewer SCENE.ron");
        return ExitCode::from(2);
    };
    match Viewer::open(path) {
        Ok(mut viewer) => {
            viewer.run();
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("viewer: {message}");
            ExitCode::from(2)
        }
    }
}

/// A body held by the mouse: which one, and the point of it that was
/// grabbed, in the body's frame.
struct Drag {
    body: BodyHandle,
    anchor: Vec2,
}

struct Viewer {
    path: PathBuf,
    world: World,
    view: View,
    options: RenderOptions,
    window: Window,
    canvas: Pixmap,
    frame: Vec<u32>,
    paused: bool,
    drag: Option<Drag>,
    /// Smoothed wall time of one step, milliseconds.
    step_ms: f64,
}

impl Viewer {
    fn open(path: PathBuf) -> Result<Viewer, String> {
        let world = load(&path)?;
        let view = window_view(&world)?;
        let (width, height) = (view.width() as usize, view.height() as usize);
        let title = format!("carom viewer — {}", path.display());
        let window = Window::new(&title, width, height, WindowOptions::default())
            .map_err(|e| format!("cannot open a window: {e}"))?;
        let canvas = Pixmap::new(view.width(), view.height())
            .ok_or_else(|| format!("cannot hold a {width}×{height} picture"))?;
        Ok(Viewer {
            path,
            world,
            view,
            options: RenderOptions::default(),
            window,
            canvas,
            frame: vec![0; width * height],
            paused: false,
            drag: None,
            step_ms: 0.0,
        })
    }

    fn run(&mut self) {
        self.window.set_target_fps(60);
        let mut last_frame = Instant::now();
        let mut since_title = 0.0;
        while self.window.is_open() && !self.window.is_key_down(Key::Escape) {
            let frame_seconds = last_frame.elapsed().as_secs_f32().min(MAX_FRAME_SECONDS);
            last_frame = Instant::now();
            self.handle_keys();
            self.handle_mouse(frame_seconds);
            if !self.paused {
                self.advance(frame_seconds);
            }
            self.present();
            since_title += frame_seconds;
            if since_title >= TITLE_PERIOD {
                since_title = 0.0;
                self.window.set_title(&self.title());
            }
        }
    }

    fn handle_keys(&mut self) {
        if self.window.is_key_pressed(Key::Space, KeyRepeat::No) {
            self.paused = !self.paused;
        }
        let step_keys = [Key::S, Key::Period];
        if self.paused
            && step_keys
                .iter()
                .any(|&k| self.window.is_key_pressed(k, KeyRepeat::Yes))
        {
            self.timed_steps(|world| {
                world.step();
                1
            });
        }
        if self.window.is_key_pressed(Key::C, KeyRepeat::No) {
            self.options.contacts = !self.options.contacts;
        }
        if self.window.is_key_pressed(Key::R, KeyRepeat::No) {
            self.reload();
        }
    }

    /// Picks a dynamic body on press, drives it toward the cursor while the
    /// button is held, and lets go on release.
    fn handle_mouse(&mut self, frame_seconds: f32) {
        let pointer = self
            .window
            .get_mouse_pos(MouseMode::Clamp)
            .map(|(x, y)| self.view.to_world(Vec2::new(x, y)));
        let held = self.window.get_mouse_down(MouseButton::Left);
        match (held, pointer) {
            (true, Some(target)) => {
                if self.drag.is_none() {
                    self.drag = pick(&self.world, target);
                }
                if let Some(drag) = &self.drag {
                    pull(&mut self.world, drag, target, frame_seconds);
                }
            }
            _ => self.drag = None,
        }
    }

    fn advance(&mut self, frame_seconds: f32) {
        self.timed_steps(|world| {
            // The frame time is finite and non-negative, the only inputs
            // `advance` refuses.
            world.advance(frame_seconds).map_or(0, |a| a.steps)
        });
    }

    /// Runs `steps` (which returns how many steps it took) and folds its
    /// time per step into the smoothed figure.
    fn timed_steps(&mut self, steps: impl FnOnce(&mut World) -> u32) {
        let start = Instant::now();
        let count = steps(&mut self.world);
        if count > 0 {
            let ms = start.elapsed().as_secs_f64() * 1e3 / f64::from(count);
            self.step_ms = if self.step_ms == 0.0 {
                ms
            } else {
                self.step_ms + SMOOTHING * (ms - self.step_ms)
            };
        }
    }

    fn reload(&mut self) {
        match load(&self.path) {
            Ok(world) => {
                self.world = world;
                self.drag = None;
            }
            Err(message) => eprintln!("viewer: {message}"),
        }
    }

    /// Draws the world and hands it to the window as 0RGB words.
    fn present(&mut self) {
        draw_world(
            &mut self.canvas.as_mut(),
            &self.world,
            &self.view,
            &self.options,
        );
        // Every pixel is opaque, so the premultiplied bytes are plain RGB.
        for (word, rgba) in self
            .frame
            .iter_mut()
            .zip(self.canvas.data().chunks_exact(4))
        {
            *word = u32::from_be_bytes([0, rgba[0], rgba[1], rgba[2]]);
        }
        let (width, height) = (self.view.width() as usize, self.view.height() as usize);
        if let Err(e) = self.window.update_with_buffer(&self.frame, width, height) {
            eprintln!("viewer: cannot draw the window: {e}");
        }
    }

    fn title(&self) -> String {
        let state = if self.paused { " — paused" } else { "" };
        format!(
            "carom viewer — {} — step {} — {:.2} ms/step{state}",
            self.path.display(),
            self.world.step_count(),
            self.step_ms
        )
    }
}

fn load(path: &Path) -> Result<World, String> {
    let scene = Scene::load(path).map_err(|e| e.to_string())?;
    scene.build_world().map_err(|e| e.to_string())
}

/// A view of the whole scene at the window width, with the height kept
/// within what fits on a screen.
fn window_view(world: &World) -> Result<View, String> {
    let natural = View::fit(world, WINDOW_WIDTH, None).map_err(|e| e.to_string())?;
    let height = natural.height().clamp(MIN_HEIGHT, MAX_HEIGHT);
    View::fit(world, WINDOW_WIDTH, Some(height)).map_err(|e| e.to_string())
}

/// The dynamic body whose shape contains the world point `p`, the topmost
/// (last drawn) when shapes overlap.
fn pick(world: &World, p: Vec2) -> Option<Drag> {
    world
        .shapes_at_point(p)
        .into_iter()
        .rev()
        .filter_map(|handle| world.shape(handle).ok())
        .find(|s| {
            world
                .body(s.body())
                .is_ok_and(|b| b.kind() == BodyKind::Dynamic)
        })
        .map(|s| Drag {
            body: s.body(),
            anchor: s.transform().apply_inverse(p),
        })
}

/// Sets the held body's velocity so that its grabbed point would reach the
/// cursor over the coming frame: a stiff spring, `v = (target − p) / t`,
/// clamped to [`MAX_DRAG_SPEED`].
fn pull(world: &mut World, drag: &Drag, target: Vec2, frame_seconds: f32) {
    let Ok(body) = world.body(drag.body) else {
        return;
    };
    let grabbed = body.transform().apply(drag.anchor);
    let seconds = frame_seconds.max(world.settings().dt);
    let velocity = ((target - grabbed) / seconds).clamp_length_max(MAX_DRAG_SPEED);
    // The velocity is finite by construction; a refusal would only mean the
    // body was removed, and then there is nothing to pull.
    let _ = world.set_linear_velocity(drag.body, velocity);
}

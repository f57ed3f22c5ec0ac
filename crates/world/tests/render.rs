//! Pictures of a world built in code: sizes, colours at known places, the
//! view's mapping, SVG structure, GIF frames and argument checks.
#![cfg(feature = "render")]

mod common;

use std::f32::consts::{FRAC_PI_2, PI};
use std::path::Path;

use carom::render::{
    parse_rect, render_pixmap, render_svg, GifRecorder, ImageFormat, Palette, Pixmap, RenderError,
    RenderOptions, Rgb, View,
};
use carom::shapes::{Aabb, Circle, Sector, Segment, Stadium, Vec2};
use carom::{BodyDef, Material, World, WorldSettings};

const CIRCLE_AT: Vec2 = Vec2::new(0.0, 2.0);
const CIRCLE_RADIUS: f32 = 0.5;
const STADIUM_AT: Vec2 = Vec2::new(2.5, 2.0);
const SECTOR_AT: Vec2 = Vec2::new(-3.0, 1.0);

/// A static floor from x = −4 to 4 at y = 0, a dynamic circle, a kinematic
/// stadium along x and a static quarter disc opening up and right.
fn known_world() -> World {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let m = Material::default();
    let floor = world.create_body(BodyDef::fixed()).unwrap();
    let segment = Segment::new(Vec2::new(-4.0, 0.0), Vec2::new(4.0, 0.0)).unwrap();
    world.add_shape(floor, segment, m).unwrap();
    let ball = world
        .create_body(BodyDef::dynamic().position(CIRCLE_AT.x, CIRCLE_AT.y))
        .unwrap();
    let circle = Circle::new(Vec2::ZERO, CIRCLE_RADIUS).unwrap();
    world.add_shape(ball, circle, m).unwrap();
    let lift = world
        .create_body(BodyDef::kinematic().position(STADIUM_AT.x, STADIUM_AT.y))
        .unwrap();
    let stadium = Stadium::new(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.25).unwrap();
    world.add_shape(lift, stadium, m).unwrap();
    let wedge = world
        .create_body(BodyDef::fixed().position(SECTOR_AT.x, SECTOR_AT.y))
        .unwrap();
    let sector = Sector::new(Vec2::ZERO, 1.0, 0.0, FRAC_PI_2).unwrap();
    world.add_shape(wedge, sector, m).unwrap();
    world
}

/// The world rectangle from (−5, −1) to (5, 4) at 400 pixels wide: 40
/// pixels per metre, 200 pixels tall, world (0, 1.5) at the centre.
fn framed() -> RenderOptions {
    RenderOptions {
        width: 400,
        view: Some(Aabb::new(Vec2::new(-5.0, -1.0), Vec2::new(5.0, 4.0))),
        ..RenderOptions::default()
    }
}

fn pixel_at(image: &Pixmap, view: &View, world_point: Vec2) -> [u8; 4] {
    let p = view.to_pixel(world_point);
    pixel(image, p.x as u32, p.y as u32)
}

fn pixel(image: &Pixmap, x: u32, y: u32) -> [u8; 4] {
    let c = image.pixel(x, y).expect("pixel inside the image");
    [c.red(), c.green(), c.blue(), c.alpha()]
}

fn palette() -> Palette {
    Palette::default()
}

#[test]
fn the_image_has_the_requested_size() {
    let world = known_world();
    let image = render_pixmap(&world, &framed()).unwrap();
    assert_eq!((image.width(), image.height()), (400, 200));
    let options = RenderOptions {
        height: Some(123),
        ..framed()
    };
    let image = render_pixmap(&world, &options).unwrap();
    assert_eq!((image.width(), image.height()), (400, 123));
}

#[test]
fn the_view_maps_world_points_to_the_expected_pixels() {
    let view = framed().view_of(&known_world()).unwrap();
    assert_eq!(view.scale(), 40.0);
    assert_eq!(view.to_pixel(Vec2::new(-5.0, 4.0)), Vec2::new(0.0, 0.0));
    assert_eq!(view.to_pixel(Vec2::new(5.0, -1.0)), Vec2::new(400.0, 200.0));
    assert_eq!(view.to_pixel(Vec2::new(0.0, 2.0)), Vec2::new(200.0, 80.0));
    // y grows up in the world and down in the picture.
    assert!(view.to_pixel(Vec2::new(0.0, 3.0)).y < view.to_pixel(Vec2::ZERO).y);
    let back = view.to_world(Vec2::new(123.0, 45.0));
    assert!(view
        .to_pixel(back)
        .abs_diff_eq(Vec2::new(123.0, 45.0), 1e-4));
}

#[test]
fn a_view_of_another_aspect_is_centred_without_stretching() {
    let rect = Aabb::new(Vec2::new(0.0, 0.0), Vec2::new(2.0, 1.0));
    let view = View::new(rect, 200, 200).unwrap();
    assert_eq!(view.scale(), 100.0);
    assert_eq!(view.to_pixel(Vec2::new(1.0, 0.5)), Vec2::new(100.0, 100.0));
    assert_eq!(view.to_pixel(Vec2::new(0.0, 0.0)), Vec2::new(0.0, 150.0));
}

#[test]
fn the_fitted_view_shows_every_shape() {
    let world = known_world();
    let options = RenderOptions {
        width: 300,
        ..RenderOptions::default()
    };
    let view = options.view_of(&world).unwrap();
    assert_eq!(view.width(), 300);
    let shown = view.world_rect();
    for shape in world.shapes() {
        let b = shape.aabb();
        assert!(
            shown.min.x < b.min.x && shown.min.y < b.min.y,
            "{b:?} in {shown:?}"
        );
        assert!(
            shown.max.x > b.max.x && shown.max.y > b.max.y,
            "{b:?} in {shown:?}"
        );
    }
}

#[test]
fn the_circle_centre_has_the_dynamic_colour() {
    let world = known_world();
    let options = framed();
    let image = render_pixmap(&world, &options).unwrap();
    let view = options.view_of(&world).unwrap();
    assert_eq!(
        pixel_at(&image, &view, CIRCLE_AT),
        palette().dynamic.fill.to_rgba()
    );
}

#[test]
fn the_stadium_and_the_sector_have_their_kinds_colours() {
    let world = known_world();
    let options = framed();
    let image = render_pixmap(&world, &options).unwrap();
    let view = options.view_of(&world).unwrap();
    let kinematic = palette().kinematic.fill.to_rgba();
    let fixed = palette().static_body.fill.to_rgba();
    assert_eq!(pixel_at(&image, &view, STADIUM_AT), kinematic);
    // Inside the rounded end, beyond the core segment.
    let tip = STADIUM_AT + Vec2::new(0.68, 0.0);
    assert_eq!(pixel_at(&image, &view, tip), kinematic);
    let inside_wedge = SECTOR_AT + Vec2::new(0.4, 0.4);
    assert_eq!(pixel_at(&image, &view, inside_wedge), fixed);
}

#[test]
fn stadium_ends_are_round_and_sectors_are_slices() {
    let world = known_world();
    let options = framed();
    let image = render_pixmap(&world, &options).unwrap();
    let view = options.view_of(&world).unwrap();
    let background = palette().background.to_rgba();
    // Just inside where a square end's corner would be, but 3 px outside
    // the half circle.
    let corner = STADIUM_AT + Vec2::new(0.73, 0.23);
    assert_eq!(pixel_at(&image, &view, corner), background);
    // Within the sector's radius but outside its quarter.
    let other_quarter = SECTOR_AT + Vec2::new(-0.4, -0.4);
    assert_eq!(pixel_at(&image, &view, other_quarter), background);
}

#[test]
fn the_floor_is_drawn_in_the_static_colour() {
    let world = known_world();
    let options = framed();
    let image = render_pixmap(&world, &options).unwrap();
    let view = options.view_of(&world).unwrap();
    // The floor at y = 0 lands on pixel row 160 and is 2 pixels wide,
    // covering rows 159 and 160 whole.
    assert_eq!(view.to_pixel(Vec2::ZERO).y, 160.0);
    let stroke = palette().static_body.stroke.to_rgba();
    for x in [-3.5, 0.0, 3.5] {
        let p = view.to_pixel(Vec2::new(x, 0.0));
        assert_eq!(pixel(&image, p.x as u32, 159), stroke, "x = {x}");
        assert_eq!(pixel(&image, p.x as u32, 160), stroke, "x = {x}");
    }
}

#[test]
fn far_from_every_shape_is_background() {
    let world = known_world();
    let image = render_pixmap(&world, &framed()).unwrap();
    let background = palette().background.to_rgba();
    for (x, y) in [(2, 2), (397, 2), (2, 197), (397, 197), (200, 20)] {
        assert_eq!(pixel(&image, x, y), background, "pixel ({x}, {y})");
    }
}

#[test]
fn the_circle_mark_turns_with_the_body() {
    let fill = palette().dynamic.fill.to_rgba();
    for (angle, marked, plain) in [(0.0, Vec2::X, Vec2::Y), (FRAC_PI_2, Vec2::Y, Vec2::X)] {
        let mut world = World::new(WorldSettings::default()).unwrap();
        let ball = world.create_body(BodyDef::dynamic().angle(angle)).unwrap();
        let circle = Circle::new(Vec2::ZERO, 1.0).unwrap();
        world.add_shape(ball, circle, Material::default()).unwrap();
        let options = RenderOptions {
            width: 100,
            view: Some(Aabb::new(Vec2::splat(-1.25), Vec2::splat(1.25))),
            ..RenderOptions::default()
        };
        let image = render_pixmap(&world, &options).unwrap();
        let view = options.view_of(&world).unwrap();
        assert_ne!(
            pixel_at(&image, &view, marked * 0.65),
            fill,
            "angle {angle}"
        );
        assert_eq!(pixel_at(&image, &view, plain * 0.65), fill, "angle {angle}");
    }
}

#[test]
fn a_full_turn_sector_is_a_disc() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let body = world.create_body(BodyDef::fixed()).unwrap();
    let disc = Sector::new(Vec2::ZERO, 1.0, 0.0, 2.0 * PI).unwrap();
    world.add_shape(body, disc, Material::default()).unwrap();
    let options = RenderOptions {
        width: 100,
        view: Some(Aabb::new(Vec2::splat(-1.25), Vec2::splat(1.25))),
        ..RenderOptions::default()
    };
    let image = render_pixmap(&world, &options).unwrap();
    let view = options.view_of(&world).unwrap();
    let fill = palette().static_body.fill.to_rgba();
    for direction in [Vec2::Y, -Vec2::X, -Vec2::Y, Vec2::new(0.6, -0.6)] {
        assert_eq!(
            pixel_at(&image, &view, direction * 0.6),
            fill,
            "{direction}"
        );
    }
}

#[test]
fn svg_has_one_element_per_shape() {
    let svg = render_svg(&known_world(), &framed()).unwrap();
    assert!(svg.starts_with("<svg "));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(r#"width="400" height="200""#));
    assert_eq!(svg.matches("<path ").count(), 4);
    for class in [
        "static segment",
        "dynamic circle",
        "kinematic stadium",
        "static sector",
    ] {
        assert_eq!(
            svg.matches(&format!(r#"class="{class}""#)).count(),
            1,
            "{class}"
        );
    }
    let dynamic = palette().dynamic.fill.to_hex_string();
    assert!(svg.contains(&format!(r#"fill="{dynamic}""#)));
}

/// Two discs overlapping on the x axis, with gravity off, after one step.
fn touching_discs() -> World {
    let settings = WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    };
    let mut world = World::new(settings).unwrap();
    add_discs(&mut world, BodyDef::dynamic(), [-0.45, 0.45], 0.5);
    world.step();
    world
}

/// Adds a disc of `radius` on a body made from `def` at each of `xs` on the
/// x axis.
fn add_discs(world: &mut World, def: BodyDef, xs: [f32; 2], radius: f32) {
    for x in xs {
        let body = world.create_body(def.clone().position(x, 0.0)).unwrap();
        let disc = Circle::new(Vec2::ZERO, radius).unwrap();
        world.add_shape(body, disc, Material::default()).unwrap();
    }
}

#[test]
fn contacts_are_drawn_only_when_asked_for() {
    let world = touching_discs();
    let points: Vec<Vec2> = world
        .contacts()
        .flat_map(|c| {
            c.manifold
                .points()
                .iter()
                .map(|p| p.point)
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(!points.is_empty(), "the discs touch");
    let plain = RenderOptions {
        width: 200,
        ..RenderOptions::default()
    };
    let overlay = RenderOptions {
        contacts: true,
        ..plain.clone()
    };
    let svg = render_svg(&world, &overlay).unwrap();
    assert_eq!(
        svg.matches(r#"class="contact point""#).count(),
        points.len()
    );
    assert!(!render_svg(&world, &plain).unwrap().contains("contact"));

    let image = render_pixmap(&world, &overlay).unwrap();
    let view = overlay.view_of(&world).unwrap();
    let red = palette().contact.to_rgba();
    for &p in &points {
        assert_eq!(pixel_at(&image, &view, p), red);
    }
}

#[test]
fn the_same_world_gives_the_same_bytes() {
    let world = touching_discs();
    let options = RenderOptions {
        contacts: true,
        ..RenderOptions::default()
    };
    let first = render_pixmap(&world, &options).unwrap();
    let second = render_pixmap(&world, &options).unwrap();
    assert!(first.data() == second.data());
    assert_eq!(
        render_svg(&world, &options).unwrap(),
        render_svg(&world, &options).unwrap()
    );
}

#[test]
fn gif_has_the_expected_frames_and_delay() {
    let mut world = known_world();
    let options = RenderOptions {
        width: 120,
        ..RenderOptions::default()
    };
    let every = 3;
    let frame_seconds = every as f32 * world.settings().dt;
    let mut gif = GifRecorder::new(Vec::new(), &world, &options, frame_seconds).unwrap();
    gif.add_frame(&world).unwrap();
    for step in 1..=12 {
        world.step();
        if step % every == 0 {
            gif.add_frame(&world).unwrap();
        }
    }
    let (width, height) = (gif.view().width(), gif.view().height());
    assert_eq!(gif.frame_count(), 5);
    let bytes = gif.finish().unwrap();
    assert!(bytes.starts_with(b"GIF89a"));

    let mut decoder = gif::DecodeOptions::new().read_info(&bytes[..]).unwrap();
    assert_eq!(
        (u32::from(decoder.width()), u32::from(decoder.height())),
        (width, height)
    );
    let mut frames = 0;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!(frame.delay, 5, "3 steps of 1/60 s is 5 centiseconds");
        frames += 1;
    }
    assert_eq!(frames, 5);
}

#[test]
fn bad_views_and_sizes_are_refused() {
    let world = known_world();
    let backwards = RenderOptions {
        view: Some(Aabb::new(Vec2::new(1.0, 0.0), Vec2::new(-1.0, 1.0))),
        ..RenderOptions::default()
    };
    let not_finite = RenderOptions {
        view: Some(Aabb::new(Vec2::ZERO, Vec2::new(f32::INFINITY, 1.0))),
        ..RenderOptions::default()
    };
    // Finite corners 6e38 apart: a side beyond f32.
    let too_wide = RenderOptions {
        view: Some(Aabb::new(Vec2::splat(-3e38), Vec2::splat(3e38))),
        ..RenderOptions::default()
    };
    let no_pixels = RenderOptions {
        width: 0,
        ..RenderOptions::default()
    };
    // Shapes too far apart for a fitted view.
    let mut spread = World::new(WorldSettings::default()).unwrap();
    add_discs(&mut spread, BodyDef::fixed(), [-3e38, 3e38], 1.0);
    let message = render_pixmap(&spread, &RenderOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("the shapes span (-3e38, -1e0)..(3e38, 1e0)"),
        "{message}"
    );
    for options in [backwards, not_finite, too_wide, no_pixels] {
        let error = render_pixmap(&world, &options).unwrap_err();
        assert!(error.is_bad_input(), "{error}");
        let message = error.to_string();
        assert!(
            message.contains("view") || message.contains("width"),
            "{message}"
        );
        assert!(render_svg(&world, &options).is_err());
    }
}

#[test]
fn the_format_comes_from_the_extension() {
    let format = |name: &str| ImageFormat::from_path(Path::new(name));
    assert_eq!(format("out.svg").unwrap(), ImageFormat::Svg);
    assert_eq!(format("dir/out.PNG").unwrap(), ImageFormat::Png);
    assert_eq!(format("out.gif").unwrap(), ImageFormat::Gif);
    for bad in ["out.jpg", "out", "out.svg.txt"] {
        let error = format(bad).unwrap_err();
        assert!(matches!(error, RenderError::BadFormat(_)));
        let message = error.to_string();
        assert!(message.contains(bad), "{message}");
        assert!(message.contains(".svg, .png or .gif"), "{message}");
    }
}

#[test]
fn views_are_parsed_and_checked() {
    let rect = parse_rect("-5,-1.5, 5 ,4").unwrap();
    assert_eq!(rect.min, Vec2::new(-5.0, -1.5));
    assert_eq!(rect.max, Vec2::new(5.0, 4.0));
    for (bad, expected) in [
        ("1,2,3", "four numbers"),
        ("1,2,3,4,5", "four numbers"),
        ("0,0,x,1", "finite"),
        ("0,0,inf,1", "finite"),
        ("0,0,NaN,1", "finite"),
        ("2,0,1,1", "x0 < x1"),
        ("0,1,1,1", "y0 < y1"),
    ] {
        let message = parse_rect(bad).unwrap_err().to_string();
        assert!(message.contains(expected), "{bad}: {message}");
        assert!(message.contains(bad), "{bad}: {message}");
    }
}

#[test]
fn colours_spell_as_svg_expects() {
    assert_eq!(Rgb::hex(0x3f7fcf).to_hex_string(), "#3f7fcf");
    assert_eq!(Rgb::hex(0x0a0b0c).to_rgba(), [10, 11, 12, 255]);
}

/// `carom render` through the binary.
#[cfg(feature = "cli")]
mod command_line {
    use super::common::binary::{carom, fixture, stderr, temp_file};

    /// Runs `carom render` on the small fixture for a few steps into `name`,
    /// expects success, and returns the bytes written.
    fn render_to(name: &str, extra: &[&str]) -> Vec<u8> {
        let out = temp_file(name);
        let out_arg = out.display().to_string();
        let scene = fixture("small.ron");
        let mut args = vec!["render", &scene, "--steps", "12", "--out", &out_arg];
        args.extend_from_slice(extra);
        let output = carom(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let bytes = std::fs::read(&out).expect("the picture was written");
        let _ = std::fs::remove_file(&out);
        bytes
    }

    #[test]
    fn writes_each_format() {
        let png = render_to("frame.png", &["--width", "200"]);
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        let svg = String::from_utf8(render_to("frame.svg", &["--contacts"])).unwrap();
        assert!(svg.starts_with("<svg ") && svg.contains("dynamic circle"));
        let gif = render_to("run.gif", &["--width", "64", "--every", "4"]);
        assert!(gif.starts_with(b"GIF89a"));
        let mut decoder = gif::DecodeOptions::new().read_info(&gif[..]).unwrap();
        let mut frames = 0;
        while decoder.read_next_frame().unwrap().is_some() {
            frames += 1;
        }
        assert_eq!(frames, 4, "steps 0, 4, 8 and 12");
    }

    #[test]
    fn the_same_run_gives_the_same_picture() {
        let view = ["--view=-3,-1,3,4"];
        assert_eq!(render_to("a.png", &view), render_to("b.png", &view));
    }

    #[test]
    fn bad_arguments_exit_2_with_a_message() {
        let scene = fixture("small.ron");
        let out = temp_file("never.png").display().to_string();
        let cases: [(Vec<&str>, &str); 6] = [
            (vec!["--out", "picture.jpg"], "use .svg, .png or .gif"),
            (vec!["--out", &out, "--view=1,0,0,1"], "x0 < x1 and y0 < y1"),
            (vec!["--out", &out, "--view", "0,0,1"], "four numbers"),
            (vec!["--out", &out, "--view=0,0,inf,1"], "finite"),
            (vec!["--out", &out, "--width", "0"], "--width"),
            (vec![], "--out"),
        ];
        for (extra, expected) in cases {
            let mut args = vec!["render", &scene];
            args.extend(extra.iter().copied());
            let output = carom(&args);
            let message = stderr(&output);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
            assert!(message.contains(expected), "{args:?}: {message}");
        }
        assert!(!temp_file("never.png").exists(), "nothing is written");
    }

    #[test]
    fn a_bad_scene_exits_2_and_an_unwritable_file_exits_1() {
        let output = carom(&["render", &fixture("negative_radius.ron"), "--out", "x.png"]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let nowhere = temp_file("no-such-dir").join("x.png").display().to_string();
        let output = carom(&["render", &fixture("small.ron"), "--out", &nowhere]);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("cannot write"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn a_sleeping_body_is_drawn_in_the_sleeping_colour_until_woken() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let floor = world.create_body(BodyDef::fixed()).unwrap();
    let segment = Segment::new(Vec2::new(-4.0, 0.0), Vec2::new(4.0, 0.0)).unwrap();
    world
        .add_shape(floor, segment, Material::default())
        .unwrap();
    let ball = world
        .create_body(BodyDef::dynamic().position(0.0, CIRCLE_RADIUS))
        .unwrap();
    let circle = Circle::new(Vec2::ZERO, CIRCLE_RADIUS).unwrap();
    world.add_shape(ball, circle, Material::default()).unwrap();
    for _ in 0..120 {
        world.step();
    }
    assert!(world.body(ball).unwrap().is_sleeping());
    let options = framed();
    let view = options.view_of(&world).unwrap();
    let centre = world.body(ball).unwrap().position();
    let image = render_pixmap(&world, &options).unwrap();
    assert_eq!(
        pixel_at(&image, &view, centre),
        palette().sleeping.fill.to_rgba()
    );
    world.wake_body(ball).unwrap();
    let image = render_pixmap(&world, &options).unwrap();
    assert_eq!(
        pixel_at(&image, &view, centre),
        palette().dynamic.fill.to_rgba()
    );
}

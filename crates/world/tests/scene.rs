//! The scene loader: bundled scenes, grid expansion and body order, and the
//! message every kind of bad input produces.

use std::time::{Duration, Instant};

use carom::scene::{Scene, SceneError, Source, BODY_LIMIT};
use carom::shapes::Vec2;
use carom::{BodyKind, Material};
use proptest::prelude::*;

fn bundled(name: &str) -> Scene {
    let path = format!("{}/../../scenes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
    Scene::load(&path).unwrap_or_else(|e| panic!("{name} should load: {e}"))
}

/// The message loading `text` as `t.ron` fails with.
fn error_of(text: &str) -> String {
    match Scene::from_str(text, "t.ron") {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// A scene holding one body with the given fields.
fn one_body(fields: &str) -> String {
    format!("Scene(bodies: [Body({fields})])")
}

/// A scene holding one grid with the given fields.
fn one_grid(fields: &str) -> String {
    format!("Scene(grids: [Grid({fields})])")
}

const BALL: &str = "shapes: [Circle(radius: 0.5)]";

#[test]
fn bundled_scenes_expand_to_the_documented_counts() {
    for (name, bodies, dynamic) in [
        ("hopper", 10_001, 10_000),
        ("capsules", 3_001, 3_000),
        ("tumbler", 2_001, 2_000),
    ] {
        let scene = bundled(name);
        assert_eq!(scene.body_count(), bodies, "{name}");
        assert_eq!(scene.summary().bodies(), bodies, "{name}");
        assert_eq!(scene.summary().dynamic_bodies, dynamic, "{name}");
        let world = scene.build_world().expect("bundled scenes build");
        assert_eq!(world.body_count() as u64, bodies, "{name}");
    }
}

#[test]
fn bundled_scene_settings_are_read() {
    let scene = bundled("tumbler");
    assert_eq!(scene.gravity, Vec2::new(0.0, -10.0));
    assert_eq!(scene.dt, 0.016666668);
    assert_eq!(scene.substeps, 4);
    assert_eq!(scene.steps, 600);
    let summary = scene.summary();
    assert_eq!(summary.kinematic_bodies, 1);
    assert_eq!((summary.circles, summary.segments), (2_000, 4));
}

#[test]
fn hopper_copies_sit_on_a_staggered_grid_in_row_major_order() {
    let scene = bundled("hopper");
    let world = scene.build_world().unwrap();
    let bodies: Vec<_> = world.bodies().collect();
    assert_eq!(bodies[0].name(), Some("box"));
    assert_eq!(bodies[0].kind(), BodyKind::Static);
    // Grid: origin (-29.7, 2.0), 100 × 100, spacing 0.6, staggered.
    let expect = |index: usize, x: f32, y: f32| {
        let p = bodies[index].position();
        assert!(
            (p - Vec2::new(x, y)).length() < 1e-4,
            "body {index} at {p}, expected ({x}, {y})"
        );
        assert_eq!(bodies[index].kind(), BodyKind::Dynamic);
    };
    expect(1, -29.7, 2.0);
    expect(2, -29.1, 2.0);
    expect(100, -29.7 + 99.0 * 0.6, 2.0);
    expect(101, -29.7 + 0.3, 2.6);
    expect(201, -29.7, 3.2);
    expect(10_000, -29.7 + 99.0 * 0.6 + 0.3, 2.0 + 99.0 * 0.6);
}

#[test]
fn tumbler_rows_are_not_staggered() {
    let world = bundled("tumbler").build_world().unwrap();
    let bodies: Vec<_> = world.bodies().collect();
    assert_eq!(bodies[0].angular_velocity(), 0.5);
    assert_eq!(bodies[0].kind(), BodyKind::Kinematic);
    assert_eq!(bodies[1].position(), Vec2::new(-12.25, -12.0));
    assert_eq!(bodies[51].position(), Vec2::new(-12.25, -11.5));
}

#[test]
fn expansion_and_world_agree_on_every_position_and_source() {
    let scene = bundled("capsules");
    let world = scene.build_world().unwrap();
    let placed: Vec<_> = scene.expand().collect();
    assert_eq!(placed.len(), world.body_count());
    for (p, body) in placed.iter().zip(world.bodies()) {
        assert_eq!(p.position, body.position(), "{}", p.source);
    }
    assert_eq!(placed[0].source, Source::Listed { index: 0 });
    assert_eq!(
        placed[61].source,
        Source::Grid {
            grid: 0,
            row: 1,
            column: 0
        }
    );
    assert_eq!(
        placed[61].source.to_string(),
        "grids[0].body (row 1, column 0)"
    );
}

#[test]
fn template_position_and_fields_carry_into_every_copy() {
    let text = one_grid(
        "origin: (1.0, 2.0), columns: 2, rows: 2, spacing: (10.0, 20.0), stagger: true,
         body: Body(name: \"pin\", position: (0.5, 0.25), angle: 1.0, velocity: (3.0, 0.0),
                    shapes: [Circle(radius: 0.1)])",
    );
    let world = Scene::from_str(&text, "t.ron")
        .unwrap()
        .build_world()
        .unwrap();
    let positions: Vec<Vec2> = world.bodies().map(|b| b.position()).collect();
    assert_eq!(
        positions,
        [
            Vec2::new(1.5, 2.25),
            Vec2::new(11.5, 2.25),
            Vec2::new(6.5, 22.25),
            Vec2::new(16.5, 22.25)
        ]
    );
    for body in world.bodies() {
        assert_eq!(body.name(), Some("pin"));
        assert_eq!(body.angle(), 1.0);
        assert_eq!(body.linear_velocity(), Vec2::new(3.0, 0.0));
    }
}

#[test]
fn omitted_fields_take_their_documented_defaults() {
    let scene = Scene::from_str("Scene()", "t.ron").unwrap();
    assert_eq!(scene.gravity, Vec2::new(0.0, -10.0));
    assert_eq!(scene.dt, 1.0 / 60.0);
    assert_eq!((scene.substeps, scene.steps), (4, 600));
    assert_eq!(scene.body_count(), 0);

    let scene = Scene::from_str(&one_body(BALL), "t.ron").unwrap();
    let body = &scene.bodies[0];
    assert_eq!(body.kind, BodyKind::Dynamic);
    assert_eq!((body.position, body.velocity), (Vec2::ZERO, Vec2::ZERO));
    assert_eq!((body.angle, body.angular_velocity), (0.0, 0.0));
    assert_eq!(Material::from(body.material), Material::default());
    assert_eq!(body.name, None);
}

#[test]
fn names_accept_implicit_and_explicit_some() {
    for name in ["\"ball\"", "Some(\"ball\")"] {
        let scene = Scene::from_str(&one_body(&format!("name: {name}, {BALL}")), "t.ron").unwrap();
        assert_eq!(scene.bodies[0].name.as_deref(), Some("ball"));
    }
}

#[test]
fn every_shape_kind_is_read_and_counted() {
    let text = one_body(
        "shapes: [Circle(radius: 1.0, center: (1.0, 0.0)), Segment(a: (0.0, 0.0), b: (1.0, 0.0)),
                  Stadium(a: (0.0, 0.0), b: (1.0, 0.0), radius: 0.5),
                  Sector(radius: 1.0, start: 0.0, sweep: 6.2831855)]",
    );
    let summary = Scene::from_str(&text, "t.ron").unwrap().summary();
    let counts = (
        summary.circles,
        summary.segments,
        summary.stadiums,
        summary.sectors,
    );
    assert_eq!(counts, (1, 1, 1, 1));
    assert_eq!(summary.shapes(), 4);
}

#[test]
fn a_scene_written_back_out_reads_the_same() {
    let scene = bundled("hopper");
    let text = ron::ser::to_string_pretty(&scene, ron::ser::PrettyConfig::default()).unwrap();
    let again = Scene::from_str(&text, &scene.origin).unwrap();
    assert_eq!(again, scene);
}

#[test]
fn syntax_errors_give_file_line_and_column() {
    let message = error_of("Scene(\n    steps: 10\n    dt: 0.01,\n)");
    assert!(message.starts_with("t.ron:3:5: "), "{message}");
    assert!(message.contains("omma"), "{message}");

    let message = error_of("Scene(bodies: [Body(shapes: [Circle(radius: 1.0)], colour: 3)])");
    assert!(message.starts_with("t.ron:1:52: "), "{message}");
    assert!(message.contains("colour"), "{message}");
}

#[test]
fn unknown_fields_are_rejected_at_every_level() {
    for (text, field) in [
        ("Scene(gravty: (0.0, 0.0))", "gravty"),
        (
            &*one_body("shapes: [Circle(radius: 1.0, centre: (0.0, 0.0))]"),
            "centre",
        ),
        (
            &*one_body("shapes: [Circle(radius: 1.0)], material: Material(bounce: 1.0)"),
            "bounce",
        ),
        (
            &*one_grid(
                "origin: (0.0, 0.0), columns: 1, rows: 1, spacing: (1.0, 1.0), gap: 1.0,
                 body: Body(shapes: [Circle(radius: 1.0)])",
            ),
            "gap",
        ),
    ] {
        let message = error_of(text);
        assert!(message.starts_with("t.ron:1:"), "{message}");
        assert!(message.contains(field), "{message}");
    }
}

#[test]
fn wrong_types_and_names_are_syntax_errors() {
    for (text, hint) in [
        (&*one_body("shapes: [Blob(radius: 1.0)]"), "Blob"),
        (
            &*one_body("kind: Floating, shapes: [Circle(radius: 1.0)]"),
            "Floating",
        ),
        ("Scene(bodies: [Grid(shapes: [])])", "Grid"),
        ("Scene(substeps: -1)", ""),
        ("Scene(steps: 1.5)", ""),
        (&*one_body("shapes: [Circle(radius: \"big\")]"), ""),
        (
            &*one_body("position: (1.0, 2.0, 3.0), shapes: [Circle(radius: 1.0)]"),
            "",
        ),
        (&*one_body("name: \"a\""), "shapes"),
        ("Scene() trailing", ""),
        ("", ""),
    ] {
        let message = error_of(text);
        let (file, rest) = message.split_once(':').unwrap();
        let (line, rest) = rest.split_once(':').unwrap();
        let (column, _) = rest.split_once(':').unwrap();
        assert_eq!(file, "t.ron", "{message}");
        assert!(
            line.parse::<usize>().is_ok() && column.parse::<usize>().is_ok(),
            "{message}"
        );
        assert!(message.contains(hint), "{message}");
    }
}

#[test]
fn non_finite_numbers_are_rejected_with_their_path() {
    for (text, expected) in [
        (
            "Scene(dt: inf)".to_string(),
            "t.ron: dt: must be finite, got inf",
        ),
        (
            "Scene(gravity: (0.0, -inf))".to_string(),
            "t.ron: gravity.y: must be finite, got -inf",
        ),
        (
            one_body(&format!("position: (NaN, 0.0), {BALL}")),
            "t.ron: bodies[0].position.x: must be finite, got NaN",
        ),
        (
            one_body(&format!("angular_velocity: inf, {BALL}")),
            "t.ron: bodies[0].angular_velocity: must be finite, got inf",
        ),
        (
            one_body("shapes: [Circle(radius: inf)]"),
            "t.ron: bodies[0].shapes[0]: circle radius must be finite",
        ),
        (
            one_body("shapes: [Circle(radius: 1e39)]"),
            "t.ron: bodies[0].shapes[0]: circle radius must be finite",
        ),
        (
            one_body(&format!("material: Material(friction: NaN), {BALL}")),
            "t.ron: bodies[0].material.friction: must be finite, got NaN",
        ),
        (
            one_grid(&format!(
                "origin: (NaN, 0.0), columns: 1, rows: 1, spacing: (1.0, 1.0), body: Body({BALL})"
            )),
            "t.ron: grids[0].origin: must be finite, got (NaN, 0)",
        ),
    ] {
        assert_eq!(error_of(&text), expected);
    }
}

#[test]
fn shape_errors_name_the_shape_and_its_place() {
    let text = format!(
        "Scene(bodies: [Body({BALL}), Body({BALL}), Body(shapes: [Circle(radius: -1.0)])])"
    );
    assert_eq!(
        error_of(&text),
        "t.ron: bodies[2].shapes[0]: circle radius must be > 0, got -1"
    );
    for (shape, expected) in [
        ("Circle(radius: 0.0)", "circle radius must be > 0, got 0"),
        (
            "Stadium(a: (0.0, 0.0), b: (1.0, 0.0), radius: 0.0)",
            "stadium radius must be > 0",
        ),
        (
            "Sector(radius: -2.0, start: 0.0, sweep: 1.0)",
            "sector radius must be > 0, got -2",
        ),
        (
            "Sector(radius: 1.0, start: 0.0, sweep: 0.0)",
            "sector sweep",
        ),
        (
            "Sector(radius: 1.0, start: 0.0, sweep: -1.0)",
            "sector sweep",
        ),
        (
            "Sector(radius: 1.0, start: 0.0, sweep: 6.3)",
            "sector sweep",
        ),
        ("Segment(a: (1.0, 2.0), b: (1.0, 2.0))", "segment"),
    ] {
        let text = one_body(&format!("kind: Static, shapes: [{shape}]"));
        let message = error_of(&text);
        assert!(
            message.starts_with("t.ron: bodies[0].shapes[0]: "),
            "{message}"
        );
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn a_stadium_without_a_core_suggests_a_circle() {
    let message = error_of(&one_body(
        "shapes: [Stadium(a: (1.0, 1.0), b: (1.0, 1.0), radius: 0.5)]",
    ));
    assert!(
        message.starts_with("t.ron: bodies[0].shapes[0]: stadium"),
        "{message}"
    );
    assert!(message.contains("Circle"), "{message}");
}

#[test]
fn a_full_turn_sector_is_accepted() {
    let text = one_body("shapes: [Sector(radius: 1.0, start: 3.0, sweep: 6.2831855)]");
    assert!(Scene::from_str(&text, "t.ron").is_ok());
}

#[test]
fn dynamic_bodies_need_mass() {
    let walls = "shapes: [Segment(a: (0.0, 0.0), b: (1.0, 0.0))]";
    let message = error_of(&one_body(walls));
    assert!(
        message.starts_with("t.ron: bodies[0]: a dynamic body needs mass"),
        "{message}"
    );
    for kind in ["Static", "Kinematic"] {
        let text = one_body(&format!("kind: {kind}, {walls}"));
        assert!(Scene::from_str(&text, "t.ron").is_ok(), "{kind}");
    }
    let message = error_of(&one_body(&format!(
        "material: Material(density: 0.0), {BALL}"
    )));
    assert!(
        message.starts_with("t.ron: bodies[0].material.density: a dynamic body needs mass"),
        "{message}"
    );
}

#[test]
fn a_shape_too_far_from_its_body_is_refused_with_its_path() {
    // Static, so that no mass rule applies: the arms from a body's centre
    // to its contacts are what overflow.
    let far = "kind: Static, shapes: [Segment(a: (-1.0, 0.0), b: (1.0, 0.0)), \
               Circle(center: (3e38, 0.0), radius: 1.0)]";
    let message = error_of(&one_body(far));
    assert_eq!(
        message,
        "t.ron: bodies[0].shapes[1]: circle reaches 3e38 m from its body's origin, \
         beyond the 1e15 m a shape may lie from it"
    );
    // Just within the limit is fine, and so is a body far out with its
    // shapes close by.
    let text = one_body("kind: Static, shapes: [Circle(center: (0.0, -9.9e14), radius: 1e12)]");
    assert!(Scene::from_str(&text, "t.ron").is_ok(), "{text}");
    let text = one_body("position: (3e38, -3e38), shapes: [Circle(radius: 1.0)]");
    assert!(Scene::from_str(&text, "t.ron").is_ok(), "{text}");
}

#[test]
fn a_dynamic_body_whose_mass_leaves_f32_is_refused_with_its_path() {
    // Finite, positive numbers whose mass or inertia is not: the solver
    // would divide by them.
    for (shapes, density, expected) in [
        (
            "Circle(radius: 1e-30)",
            1.0,
            "a mass too small to invert (0 kg)",
        ),
        ("Circle(radius: 0.5)", 1e-40, "a mass too small to invert"),
        (
            "Circle(radius: 1e10)",
            1e38,
            "a mass beyond f32's range (inf kg)",
        ),
        (
            "Circle(radius: 1e15)",
            1.0,
            "a moment of inertia beyond f32's range",
        ),
    ] {
        let body = format!("material: Material(density: {density:e}), shapes: [{shapes}]");
        let message = error_of(&one_body(&body));
        let path = "t.ron: bodies[0].material.density: gives this dynamic body ";
        assert!(message.starts_with(path), "{message}");
        assert!(message.contains(expected), "{message}");
        // A static body of the same shape is fine: it has no inverse mass.
        let text = one_body(&format!("kind: Static, {body}"));
        assert!(Scene::from_str(&text, "t.ron").is_ok(), "{text}");
    }
}

#[test]
fn a_body_needs_a_shape() {
    assert_eq!(
        error_of(&one_body("shapes: []")),
        "t.ron: bodies[0].shapes: a body needs at least one shape"
    );
}

#[test]
fn step_settings_are_range_checked() {
    for text in ["Scene(dt: 0.0)", "Scene(dt: -0.01)"] {
        assert!(
            error_of(text).starts_with("t.ron: dt: must be > 0"),
            "{text}"
        );
    }
    for substeps in [0, 65] {
        let message = error_of(&format!("Scene(substeps: {substeps})"));
        assert!(message.starts_with("t.ron: substeps: "), "{message}");
        assert!(message.contains("1..=64"), "{message}");
    }
    for substeps in [1, 64] {
        assert!(Scene::from_str(&format!("Scene(substeps: {substeps})"), "t.ron").is_ok());
    }
}

#[test]
fn materials_are_range_checked() {
    for (material, path) in [
        ("density: -1.0", "density: must be >= 0, got -1"),
        ("friction: -0.5", "friction: must be >= 0, got -0.5"),
        ("restitution: -0.1", "restitution: must be >= 0, got -0.1"),
        (
            "restitution: 1.5",
            "restitution: must lie in [0, 1], got 1.5",
        ),
    ] {
        let text = one_body(&format!(
            "kind: Static, material: Material({material}), {BALL}"
        ));
        assert_eq!(error_of(&text), format!("t.ron: bodies[0].material.{path}"));
    }
    let text = one_body(&format!(
        "material: Material(restitution: 1.0, friction: 0.0), {BALL}"
    ));
    assert!(Scene::from_str(&text, "t.ron").is_ok());
}

#[test]
fn grid_errors_name_the_grid() {
    let grid = |rows: u32, columns: u32, shapes: &str| {
        format!(
            "Grid(origin: (0.0, 0.0), columns: {columns}, rows: {rows}, spacing: (1.0, 1.0),
                  body: Body(shapes: [{shapes}]))"
        )
    };
    let ball = "Circle(radius: 0.5)";
    let text = format!("Scene(grids: [{}, {}])", grid(1, 1, ball), grid(0, 3, ball));
    assert_eq!(error_of(&text), "t.ron: grids[1].rows: must be >= 1, got 0");
    let text = format!("Scene(grids: [{}])", grid(2, 0, ball));
    assert_eq!(
        error_of(&text),
        "t.ron: grids[0].columns: must be >= 1, got 0"
    );
    let text = format!(
        "Scene(grids: [{}])",
        grid(2, 2, "Circle(radius: 0.5), Circle(radius: -3.0)")
    );
    assert_eq!(
        error_of(&text),
        "t.ron: grids[0].body.shapes[1]: circle radius must be > 0, got -3"
    );
}

#[test]
fn grid_copies_must_land_at_finite_positions() {
    let text = one_grid(&format!(
        "origin: (3e38, 0.0), columns: 3, rows: 1, spacing: (1e38, 0.0), body: Body({BALL})"
    ));
    let message = error_of(&text);
    assert!(
        message.starts_with("t.ron: grids[0]: the copy at row 0, column 2 lands at (inf"),
        "{message}"
    );
}

#[test]
fn huge_grids_are_refused_at_once() {
    let started = Instant::now();
    let text = one_grid(&format!(
        "origin: (0.0, 0.0), columns: 4294967295, rows: 4294967295, spacing: (1.0, 1.0),
         body: Body({BALL})"
    ));
    let message = error_of(&text);
    assert_eq!(
        message,
        "t.ron: the scene expands to 18446744065119617025 bodies, more than the limit of 10000000"
    );
    // Two of them together exceed u64; the count must still be exact.
    let text = text.replace("grids: [Grid(", "grids: [Grid(origin: (0.0, 0.0), columns: 4294967295, rows: 4294967295, spacing: (1.0, 1.0), body: Body(shapes: [Circle(radius: 0.5)])), Grid(");
    assert!(error_of(&text).contains("36893488130239234050 bodies"));
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "validation must not expand the grids"
    );
}

#[test]
fn the_body_limit_is_inclusive() {
    let grid = |rows: u64| {
        format!(
            "Grid(origin: (0.0, 0.0), columns: 1000, rows: {rows}, spacing: (1.0, 1.0), body: Body({BALL}))"
        )
    };
    let at_limit = format!("Scene(grids: [{}])", grid(BODY_LIMIT / 1000));
    let scene = Scene::from_str(&at_limit, "t.ron").expect("exactly at the limit is fine");
    assert_eq!(scene.body_count(), BODY_LIMIT);
    let over = format!(
        "Scene(bodies: [Body({BALL})], grids: [{}])",
        grid(BODY_LIMIT / 1000)
    );
    assert!(error_of(&over).ends_with("10000001 bodies, more than the limit of 10000000"));
}

#[test]
fn many_shaped_templates_hit_the_shape_limit() {
    let shapes = ["Circle(radius: 0.5)"; 5].join(", ");
    let text = one_grid(&format!(
        "origin: (0.0, 0.0), columns: 1000, rows: 10000, spacing: (1.0, 1.0),
         body: Body(shapes: [{shapes}])"
    ));
    assert!(error_of(&text).ends_with("50000000 shapes, more than the limit of 40000000"));
}

#[test]
fn a_missing_file_is_named() {
    let error = Scene::load("no/such/scene.ron").unwrap_err();
    assert!(matches!(error, SceneError::Read { .. }));
    assert!(error
        .to_string()
        .starts_with("no/such/scene.ron: cannot read the scene: "));
}

#[test]
fn edited_scenes_are_validated_before_building() {
    let mut scene = bundled("tumbler");
    scene.grids[0].rows = 0;
    let error = scene.build_world().err().expect("rows 0 must be refused");
    assert!(
        error
            .to_string()
            .ends_with("grids[0].rows: must be >= 1, got 0"),
        "{error}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Damaged scene text never panics the loader.
    #[test]
    fn damaged_text_never_panics(cut in 0usize..1200, at in 0usize..1200, byte in 32u8..127) {
        let text = std::fs::read_to_string(
            format!("{}/../../scenes/capsules.ron", env!("CARGO_MANIFEST_DIR"))
        ).unwrap();
        let mut bytes = text.into_bytes();
        if at < bytes.len() {
            bytes[at] = byte;
        }
        bytes.truncate(cut.max(at));
        let damaged = String::from_utf8_lossy(&bytes);
        let _ = Scene::from_str(&damaged, "damaged.ron");
    }
}

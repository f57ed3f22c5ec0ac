use std::fmt::Write;

use glam::Vec2;

use super::outline::PathStep;
use super::picture::Mark;
use super::{Rgb, View};

/// Writes a whole SVG document: a background rectangle, then one `<path>`
/// per mark in order.
pub(crate) fn document(view: &View, background: Rgb, marks: impl Iterator<Item = Mark>) -> String {
    let (w, h) = (view.width(), view.height());
    let mut out = String::new();
    // Writing into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    let _ = writeln!(
        out,
        r#"<rect class="background" width="{w}" height="{h}" fill="{}"/>"#,
        background.to_hex_string()
    );
    for mark in marks {
        write_mark(&mut out, &mark);
    }
    out.push_str("</svg>\n");
    out
}

fn write_mark(out: &mut String, mark: &Mark) {
    let fill = mark.fill.map_or("none".to_string(), Rgb::to_hex_string);
    let _ = write!(
        out,
        r#"<path class="{} {}" fill="{fill}""#,
        mark.role, mark.what
    );
    if let Some((color, width)) = mark.stroke {
        let _ = write!(
            out,
            r#" stroke="{}" stroke-width="{width:.2}" stroke-linecap="round" stroke-linejoin="round""#,
            color.to_hex_string()
        );
    }
    out.push_str(r#" d=""#);
    write_path(out, &mark.path);
    out.push_str("\"/>\n");
}

fn write_path(out: &mut String, path: &[PathStep]) {
    for (i, step) in path.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match *step {
            PathStep::Move(p) => write_points(out, 'M', &[p]),
            PathStep::Line(p) => write_points(out, 'L', &[p]),
            PathStep::Cubic(c1, c2, p) => write_points(out, 'C', &[c1, c2, p]),
            PathStep::Close => out.push('Z'),
        }
    }
}

/// Two decimals: a hundredth of a pixel is finer than any display shows,
/// and fixed precision keeps the output byte-for-byte reproducible.
fn write_points(out: &mut String, command: char, points: &[Vec2]) {
    out.push(command);
    for (i, p) in points.iter().enumerate() {
        let sep = if i > 0 { " " } else { "" };
        let _ = write!(out, "{sep}{:.2} {:.2}", p.x, p.y);
    }
}

use std::path::Path;

use carom_shapes::Aabb;
use glam::Vec2;

use super::RenderError;

/// The kinds of picture carom writes, told apart by the file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// `.svg`: a vector drawing of one moment.
    Svg,
    /// `.png`: an image of one moment.
    Png,
    /// `.gif`: an animation.
    Gif,
}

impl ImageFormat {
    /// The format named by the extension of `path`, in any letter case.
    pub fn from_path(path: &Path) -> Result<ImageFormat, RenderError> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("svg") => Ok(ImageFormat::Svg),
            Some("png") => Ok(ImageFormat::Png),
            Some("gif") => Ok(ImageFormat::Gif),
            Some(other) => Err(unknown_format(path, &format!("the extension `.{other}`"))),
            None => Err(unknown_format(path, "no extension")),
        }
    }
}

fn unknown_format(path: &Path, found: &str) -> RenderError {
    RenderError::BadFormat(format!(
        "{}: cannot tell the picture format from {found}; use .svg, .png or .gif",
        path.display()
    ))
}

/// Reads a world rectangle written `x0,y0,x1,y1` (the lower-left corner, then
/// the upper-right one). Every number must be finite, with `x0 < x1` and
/// `y0 < y1`.
///
/// ```
/// use carom::render::parse_rect;
///
/// let rect = parse_rect("-5,-1,5,4").unwrap();
/// assert_eq!((rect.min.x, rect.max.y), (-5.0, 4.0));
/// assert!(parse_rect("5,0,-5,4").is_err());
/// ```
pub fn parse_rect(text: &str) -> Result<Aabb, RenderError> {
    let numbers = text
        .split(',')
        .map(|part| parse_number(part, text))
        .collect::<Result<Vec<f32>, RenderError>>()?;
    let [x0, y0, x1, y1] = numbers[..] else {
        return Err(bad_rect(text, "four numbers x0,y0,x1,y1"));
    };
    if x0 >= x1 || y0 >= y1 {
        return Err(bad_rect(text, "x0 < x1 and y0 < y1"));
    }
    Ok(Aabb::new(Vec2::new(x0, y0), Vec2::new(x1, y1)))
}

fn parse_number(part: &str, text: &str) -> Result<f32, RenderError> {
    match part.trim().parse::<f32>() {
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err(bad_rect(text, "four finite numbers x0,y0,x1,y1")),
    }
}

fn bad_rect(text: &str, expected: &str) -> RenderError {
    RenderError::BadView(format!("the view must be {expected}, got `{text}`"))
}

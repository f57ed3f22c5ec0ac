use crate::BodyKind;

/// An opaque colour, 8 bits per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
}

impl Rgb {
    /// The colour `0xRRGGBB`.
    pub const fn hex(value: u32) -> Rgb {
        Rgb {
            r: (value >> 16) as u8,
            g: (value >> 8) as u8,
            b: value as u8,
        }
    }

    /// The colour as `#rrggbb`, the spelling SVG uses.
    pub fn to_hex_string(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }

    /// The colour as `[r, g, b, 255]`, the layout of a rendered pixel.
    pub fn to_rgba(self) -> [u8; 4] {
        [self.r, self.g, self.b, 255]
    }
}

/// How the shapes of one kind of body are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BodyStyle {
    /// Inside of solid shapes.
    pub fill: Rgb,
    /// Outlines, the rotation mark of circles, and whole segments (which
    /// have no inside).
    pub stroke: Rgb,
}

/// The colours of a picture.
///
/// The default palette, chosen to stay apart for the common forms of colour
/// blindness (kinds differ in lightness as well as hue):
///
/// | role | fill | stroke |
/// |---|---|---|
/// | background | `#f8f7f4` | |
/// | static | `#b8bcc4` grey | `#374151` slate |
/// | kinematic | `#f4a340` amber | `#a85d00` brown |
/// | dynamic | `#3f7fcf` blue | `#1c4a85` navy |
/// | sleeping | `#a7b4c4` blue-grey | `#5c6b7e` |
/// | contacts | `#e0302b` red | |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Palette {
    /// Everything no shape covers.
    pub background: Rgb,
    /// Bodies that never move.
    pub static_body: BodyStyle,
    /// Bodies moved by their own velocities.
    pub kinematic: BodyStyle,
    /// Simulated bodies.
    pub dynamic: BodyStyle,
    /// Dynamic bodies asleep: at rest, skipped by the solver until woken.
    pub sleeping: BodyStyle,
    /// Contact points and normals of the overlay.
    pub contact: Rgb,
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            background: Rgb::hex(0xf8f7f4),
            static_body: BodyStyle {
                fill: Rgb::hex(0xb8bcc4),
                stroke: Rgb::hex(0x374151),
            },
            kinematic: BodyStyle {
                fill: Rgb::hex(0xf4a340),
                stroke: Rgb::hex(0xa85d00),
            },
            dynamic: BodyStyle {
                fill: Rgb::hex(0x3f7fcf),
                stroke: Rgb::hex(0x1c4a85),
            },
            sleeping: BodyStyle {
                fill: Rgb::hex(0xa7b4c4),
                stroke: Rgb::hex(0x5c6b7e),
            },
            contact: Rgb::hex(0xe0302b),
        }
    }
}

impl Palette {
    /// The style of a body of the given kind.
    pub fn style_for(&self, kind: BodyKind) -> BodyStyle {
        match kind {
            BodyKind::Static => self.static_body,
            BodyKind::Kinematic => self.kinematic,
            BodyKind::Dynamic => self.dynamic,
        }
    }

    /// The style of a body of the given kind, in the sleeping colour when
    /// it sleeps.
    pub fn style_of_body(&self, kind: BodyKind, sleeping: bool) -> BodyStyle {
        if sleeping {
            self.sleeping
        } else {
            self.style_for(kind)
        }
    }
}

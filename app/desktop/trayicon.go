//go:build desktop

package desktop

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/plugboard/plugboard/backend/reload"
)

// trayIconSize is the side of the tray pictures: panels draw 16–48 px, and StatusNotifierItem
// hosts scale down a 64 px pixmap cleanly, while the 512 px app icon would cost 1 MiB of
// ARGB on the bus at every state change.
const trayIconSize = 64

// stateColours are the dots that tell the states apart at a glance, and stay apart for
// red–green colour blindness by brightness as well as hue (green is light, red is dark).
var stateColours = map[string]color.NRGBA{
	reload.StateOK:        {0x2e, 0xb8, 0x4f, 0xff}, // green: watching, no errors
	reload.StateIssues:    {0xd3, 0x2f, 0x2f, 0xff}, // red: some plugin or skill has an error
	reload.StateReloading: {0xf5, 0xb0, 0x00, 0xff}, // amber: a scan is running
	reload.StatePaused:    {0x61, 0x61, 0x61, 0xff}, // dark grey on the greyed icon: not watching
}

// trayIcons draws one PNG per state from the app icon, so the tray looks like the app
// and its launcher: the icon scaled down with a coloured dot in the lower right corner,
// and greyed out while watching is paused. They are drawn once at start-up (a few ms)
// rather than kept as files, so they cannot drift from build/appicon.png.
func trayIcons(appIcon []byte) map[string][]byte {
	base := scaledIcon(appIcon, trayIconSize)
	out := make(map[string][]byte, len(stateColours))
	for state, dot := range stateColours {
		img := image.NewNRGBA(base.Bounds())
		copy(img.Pix, base.Pix)
		if state == reload.StatePaused {
			grey(img)
		}
		drawDot(img, dot)
		var buf bytes.Buffer
		_ = png.Encode(&buf, img) // an in-memory NRGBA image always encodes
		out[state] = buf.Bytes()
	}
	return out
}

// scaledIcon decodes the app icon and shrinks it to size×size by averaging (a box filter:
// the icon is square and flat, so nothing finer is needed). An icon that does not decode
// gives a plain blue rounded square, the app icon's colour, so the tray still shows up.
func scaledIcon(data []byte, size int) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, size, size))
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil || src.Bounds().Dx() < size || src.Bounds().Dy() < size {
		fillRoundedSquare(out, color.NRGBA{0x2f, 0x5b, 0xd6, 0xff})
		return out
	}
	b := src.Bounds()
	for y := 0; y < size; y++ {
		y0, y1 := b.Min.Y+y*b.Dy()/size, b.Min.Y+(y+1)*b.Dy()/size
		for x := 0; x < size; x++ {
			x0, x1 := b.Min.X+x*b.Dx()/size, b.Min.X+(x+1)*b.Dx()/size
			var r, g, bl, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := src.At(sx, sy).RGBA() // premultiplied, 16 bit
					r, g, bl, a, n = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca), n+1
				}
			}
			out.Set(x, y, color.RGBA64{uint16(r / n), uint16(g / n), uint16(bl / n), uint16(a / n)})
		}
	}
	return out
}

// grey turns the picture to a light grey: "paused" reads as switched off.
func grey(img *image.NRGBA) {
	for i := 0; i < len(img.Pix); i += 4 {
		p := img.Pix[i : i+3 : i+3]
		l := (299*uint32(p[0]) + 587*uint32(p[1]) + 114*uint32(p[2])) / 1000
		l = 96 + l*5/8 // lift and flatten: the blue becomes a mid grey, the white stays light
		p[0], p[1], p[2] = uint8(l), uint8(l), uint8(l)
	}
}

// drawDot paints a filled circle of c with a white ring in the lower right corner, with
// anti-aliased edges, so it shows on the blue icon and on light or dark panels alike.
func drawDot(img *image.NRGBA, c color.NRGBA) {
	size := float64(img.Bounds().Dx())
	r := size * dotRadius    // the dot
	ring := r + size*dotRing // the white ring around it
	cx, cy := dotCentre(size), dotCentre(size)
	for y := 0; y < img.Bounds().Dy(); y++ {
		for x := 0; x < img.Bounds().Dx(); x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			if a := coverage(ring - d); a > 0 {
				blend(img, x, y, color.NRGBA{0xff, 0xff, 0xff, 0xff}, a)
			}
			if a := coverage(r - d); a > 0 {
				blend(img, x, y, c, a)
			}
		}
	}
}

// The dot's radius and its ring's width, as fractions of the icon's side.
const dotRadius, dotRing = 0.22, 0.06

// dotCentre is where the dot's centre lies on both axes: its ring touches the corner.
func dotCentre(size float64) float64 { return size * (1 - dotRadius - dotRing) }

// coverage is how much of a pixel lies inside an edge at distance d (positive: inside).
func coverage(d float64) float64 { return math.Max(0, math.Min(1, d+0.5)) }

// blend lays c over the pixel at (x, y) with opacity a.
func blend(img *image.NRGBA, x, y int, c color.NRGBA, a float64) {
	i := img.PixOffset(x, y)
	p := img.Pix[i : i+4 : i+4]
	da := float64(p[3]) / 255
	oa := a + da*(1-a)
	if oa == 0 {
		return
	}
	for k, v := range []uint8{c.R, c.G, c.B} {
		p[k] = uint8(math.Round((float64(v)*a + float64(p[k])*da*(1-a)) / oa))
	}
	p[3] = uint8(math.Round(oa * 255))
}

// fillRoundedSquare is the fallback picture when the app icon is missing.
func fillRoundedSquare(img *image.NRGBA, c color.NRGBA) {
	s := float64(img.Bounds().Dx())
	rad := s * 0.2
	for y := 0; y < img.Bounds().Dy(); y++ {
		for x := 0; x < img.Bounds().Dx(); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			qx := math.Max(math.Max(rad-px, px-(s-rad)), 0)
			qy := math.Max(math.Max(rad-py, py-(s-rad)), 0)
			if a := coverage(rad - math.Hypot(qx, qy)); a > 0 {
				blend(img, x, y, c, a)
			}
		}
	}
}

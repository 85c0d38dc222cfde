package everything

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// onePixelPNG returns a 1×1 red PNG image.
func onePixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 0xff, A: 0xff})
	var b bytes.Buffer
	_ = png.Encode(&b, img) // encoding into memory cannot fail
	return b.Bytes()
}

// shortWAV returns a mono 8 kHz 16-bit PCM WAV file of n silent samples.
func shortWAV(n int) []byte {
	const rate, bits, channels = 8000, 16, 1
	data := n * channels * bits / 8
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + data))
	b.WriteString("WAVEfmt ")
	w(uint32(16))                         // fmt chunk size
	w(uint16(1))                          // PCM
	w(uint16(channels))                   // channels
	w(uint32(rate))                       // sample rate
	w(uint32(rate * channels * bits / 8)) // byte rate
	w(uint16(channels * bits / 8))        // block align
	w(uint16(bits))                       // bits per sample
	b.WriteString("data")
	w(uint32(data))
	b.Write(make([]byte, data))
	return b.Bytes()
}

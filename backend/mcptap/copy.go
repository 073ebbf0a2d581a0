package mcptap

import (
	"bufio"
	"errors"
	"io"
	"time"
)

// MaxLine is the longest line Copy shows whole: a longer one is relayed in pieces as it
// arrives, never held whole, and only its first and last cutKeep bytes are shown.
const MaxLine = 1 << 20

const (
	// readBuffer is how much of a line Copy reads at once.
	readBuffer = 64 << 10
	// cutKeep is how much of each end of a line longer than the cap Copy keeps: enough
	// for the members a JSON-RPC message names before or after a long result.
	cutKeep = 4 << 10
)

// Line is one line Copy relayed: the whole of it (with its newline; the last line of
// the input without one), or for a line longer than the cap (Cut) its first and last
// bytes.
type Line struct {
	Bytes []byte    // the line, or its first cutKeep bytes when Cut
	Tail  []byte    // the last cutKeep bytes of a Cut line
	Cut   bool      // the line was longer than the cap and is not whole here
	At    time.Time // when its first byte was read
}

// Copy relays src to dst byte for byte until src ends, and shows see each line (with
// the cap max, see Line). When before is true a line is shown before its last piece is
// written, so that whatever the other side answers to it comes after see returned (a
// call is noted before the server can answer it); otherwise after. see must not keep
// the slices. Each line is flushed once whole, and a piece of one when no more input is
// at hand. Copy returns nil when src ends, or the first error reading src or writing
// dst.
func Copy(dst io.Writer, src io.Reader, max int, before bool, see func(Line)) error {
	r := bufio.NewReaderSize(src, readBuffer)
	w := bufio.NewWriterSize(dst, readBuffer)
	var held []byte // the pieces of the current line read so far, when it came in pieces
	var head, tail []byte
	var at time.Time
	over, starting := false, true
	for {
		piece, rerr := r.ReadSlice('\n')
		if starting && len(piece) > 0 {
			at, starting = time.Now(), false
		}
		whole := rerr == nil || (rerr == io.EOF && len(piece) > 0)
		var line *Line
		switch {
		case over:
			tail = keepLast(tail, piece)
		case len(held)+len(piece) > max:
			over = true
			head = append(head[:0], held[:min(len(held), cutKeep)]...)
			if n := cutKeep - len(head); n > 0 {
				head = append(head, piece[:min(n, len(piece))]...)
			}
			tail = keepLast(keepLast(tail[:0], held), piece)
			held = nil
		case whole && len(held) == 0:
			line = &Line{Bytes: piece, At: at}
		default:
			held = append(held, piece...)
			if whole {
				line = &Line{Bytes: held, At: at}
			}
		}
		if whole && over {
			line = &Line{Bytes: head, Tail: tail, Cut: true, At: at}
		}
		if line != nil && before {
			see(*line)
		}
		if _, err := w.Write(piece); err != nil {
			return err
		}
		if whole || r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if line != nil && !before {
			see(*line)
		}
		if whole {
			over, starting = false, true
			held = held[:0]
			if cap(held) > readBuffer {
				held = nil
			}
		}
		switch {
		case rerr == nil || errors.Is(rerr, bufio.ErrBufferFull):
		case rerr == io.EOF:
			return w.Flush()
		default:
			if err := w.Flush(); err != nil {
				return err
			}
			return rerr
		}
	}
}

// keepLast appends p to buf and keeps the last cutKeep bytes.
func keepLast(buf, p []byte) []byte {
	if len(p) >= cutKeep {
		return append(buf[:0], p[len(p)-cutKeep:]...)
	}
	if drop := len(buf) + len(p) - cutKeep; drop > 0 {
		buf = append(buf[:0], buf[drop:]...)
	}
	return append(buf, p...)
}

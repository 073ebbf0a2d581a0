package mcptap

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// chunks reads r in pieces of the sizes given, over and over: lines arrive split at
// every place a pipe may split them.
type chunks struct {
	r     io.Reader
	sizes []int
	i     int
}

func (c *chunks) Read(p []byte) (int, error) {
	n := c.sizes[c.i%len(c.sizes)]
	c.i++
	return c.r.Read(p[:min(n, len(p))])
}

// seenLines collects what Copy shows, copied (Copy's slices are its own).
type seenLines struct{ lines []Line }

func (s *seenLines) see(l Line) {
	l.Bytes, l.Tail = bytes.Clone(l.Bytes), bytes.Clone(l.Tail)
	s.lines = append(s.lines, l)
}

// TestCopyRelaysByteForByte: whatever the lines and however they are split, dst gets
// exactly src; every line up to the cap is shown whole, newline included (the last one
// without), and a line over the cap (3 MiB here) is shown by its two ends only.
func TestCopyRelaysByteForByte(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 3<<20) + `"}]}}` + "\n"
	parts := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}` + "\n",
		"\n",
		"crlf line\r\n",
		huge,
		strings.Repeat("y", MaxLine-1) + "\n", // exactly the cap, newline included
		"é ünïcode \x00 and a NUL\n",
		`{"last":"line without a newline"}`,
	}
	in := strings.Join(parts, "")
	for _, sizes := range [][]int{{1 << 20}, {7, 4093, 65536, 1, 100000}, {1}} {
		if sizes[0] == 1 {
			in = strings.Join(parts[:3], "") + strings.Join(parts[5:], "") // one byte at a time: spare the megabytes
		}
		var out bytes.Buffer
		var s seenLines
		if err := Copy(&out, &chunks{r: strings.NewReader(in), sizes: sizes}, MaxLine, false, s.see); err != nil {
			t.Fatal(err)
		}
		if out.String() != in {
			t.Fatalf("pieces %v: relayed %d bytes that differ from the %d given", sizes, out.Len(), len(in))
		}
		var whole []string
		for _, l := range s.lines {
			if l.Cut {
				if string(l.Bytes) != huge[:cutKeep] || string(l.Tail) != huge[len(huge)-cutKeep:] {
					t.Errorf("pieces %v: a cut line shows %d bytes and %d at its end, not the line's first and last %d", sizes, len(l.Bytes), len(l.Tail), cutKeep)
				}
				whole = append(whole, "(cut)")
				continue
			}
			whole = append(whole, string(l.Bytes))
		}
		want := []string{parts[0], parts[1], parts[2], "(cut)", parts[4], parts[5], parts[6]}
		if sizes[0] == 1 {
			want = []string{parts[0], parts[1], parts[2], parts[5], parts[6]}
		}
		if strings.Join(whole, "|") != strings.Join(want, "|") {
			t.Errorf("pieces %v: shown %d lines %.200q\nwant %.200q", sizes, len(whole), whole, want)
		}
	}
}

// TestCopyShowsBeforeOrAfter: with before, each line is shown before any of it that
// completes it is written (so a call is noted before the server can read it); without,
// after it is written.
func TestCopyShowsBeforeOrAfter(t *testing.T) {
	in := "one\ntwo\nthree\n"
	for _, before := range []bool{true, false} {
		w := &orderWriter{}
		err := Copy(w, &chunks{r: strings.NewReader(in), sizes: []int{2, 3}}, MaxLine, before, func(l Line) {
			w.seen++
			w.shownAt = append(w.shownAt, w.lines)
		})
		if err != nil {
			t.Fatal(err)
		}
		// shownAt[i] is how many whole lines were written when line i was shown.
		for i, n := range w.shownAt {
			if before && n != i || !before && n != i+1 {
				t.Errorf("before=%v: line %d shown when %d lines were written", before, i, n)
			}
		}
		if len(w.shownAt) != 3 || w.buf.String() != in {
			t.Errorf("before=%v: shown %d lines, relayed %q", before, len(w.shownAt), w.buf.String())
		}
	}
}

type orderWriter struct {
	buf     bytes.Buffer
	lines   int
	seen    int
	shownAt []int
}

func (w *orderWriter) Write(p []byte) (int, error) {
	w.lines += bytes.Count(p, []byte("\n"))
	return w.buf.Write(p)
}

// TestCopyDoesNotHoldALongLine: a 64 MiB line is relayed with a few buffers' worth of
// memory, never held whole.
func TestCopyDoesNotHoldALongLine(t *testing.T) {
	const size = 64 << 20
	src := io.MultiReader(io.LimitReader(repeat('A'), size), strings.NewReader("\n"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := &counter{}
	var s seenLines
	if err := Copy(n, src, MaxLine, false, s.see); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n.n != size+1 || len(s.lines) != 1 || !s.lines[0].Cut {
		t.Fatalf("relayed %d bytes, shown %+v lines; want %d bytes and one cut line", n.n, len(s.lines), size+1)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("relaying a %d MiB line allocated %d MiB; it must not be held whole", size>>20, alloc>>20)
	}
}

type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

type counter struct{ n int }

func (c *counter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

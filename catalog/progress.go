package catalog

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
)

// redrawEvery limits the progress line to about ten redraws a second.
const redrawEvery = 100 * time.Millisecond

const barWidth = 30

// progress draws one line, redrawn in place with \r: a bar and the percent
// of bytes read (when the size is known), products, rate and ETA. A nil
// progress draws nothing.
type progress struct {
	w           io.Writer
	size        int64
	start, last time.Time
	read        int64
	products    int
	width       int    // of the last line drawn, to blank leftovers
	step        string // what the import does after reading the file, when it takes a while
}

func newProgress(w io.Writer, size int64) *progress {
	if w == nil {
		return nil
	}
	now := time.Now()
	return &progress{w: w, size: size, start: now, last: now}
}

// update records the bytes read and products processed so far and redraws
// if the last redraw is old enough.
func (p *progress) update(read int64, products int) {
	if p == nil {
		return
	}
	p.read, p.products = read, products
	if now := time.Now(); now.Sub(p.last) >= redrawEvery {
		p.last = now
		p.draw(now)
	}
}

func (p *progress) draw(now time.Time) {
	elapsed := now.Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.products) / elapsed.Seconds()
	}
	var b strings.Builder
	if p.size > 0 {
		frac := min(float64(p.read)/float64(p.size), 1)
		filled := int(frac * barWidth)
		b.WriteString("[" + strings.Repeat("=", filled) + strings.Repeat(" ", barWidth-filled) + "] ")
		fmt.Fprintf(&b, "%3.0f%%  ", frac*100)
	} else {
		fmt.Fprintf(&b, "%s read  ", humanize.Bytes(uint64(p.read)))
	}
	fmt.Fprintf(&b, "%s products  %s/s", formatCount(p.products), formatCount(int(rate)))
	if p.step != "" {
		b.WriteString("  " + p.step)
	} else if p.size > 0 && p.read > 0 && p.read < p.size {
		eta := time.Duration(float64(elapsed) * float64(p.size-p.read) / float64(p.read))
		fmt.Fprintf(&b, "  ETA %s", formatDuration(eta))
	}
	line := b.String()
	pad := max(p.width-len(line), 0)
	p.width = len(line)
	fmt.Fprint(p.w, "\r"+line+strings.Repeat(" ", pad))
}

// showStep redraws the line naming step, a long one after the file is
// read (whose products no longer move the line).
func (p *progress) showStep(step string) {
	if p == nil {
		return
	}
	p.step = step
	p.draw(time.Now())
}

// done draws the final state, ends the line and sums up.
func (p *progress) done(res Result, err error) {
	if p == nil {
		return
	}
	now := time.Now()
	p.step = ""
	if err == nil && p.size > 0 {
		p.read = p.size
	}
	p.draw(now)
	elapsed := now.Sub(p.start)
	if err != nil {
		fmt.Fprintf(p.w, "\nImport failed after %s products and %s: nothing was stored.\n",
			formatCount(p.products), formatDuration(elapsed))
		return
	}
	n := res.Products()
	fmt.Fprintf(p.w, "\n%s products (%s created, %s updated, %s unchanged) in %s, %s products/s.\n",
		formatCount(n), formatCount(res.Created), formatCount(res.Updated), formatCount(res.Unchanged),
		formatDuration(elapsed), formatCount(int(float64(n)/max(elapsed.Seconds(), 1e-9))))
}

// formatCount writes n with thousands separators: 12,345.
func formatCount(n int) string {
	return humanize.Comma(int64(n))
}

// formatDuration rounds to tenths of a second: 5.5s, 1m5.3s.
func formatDuration(d time.Duration) string {
	return d.Round(100 * time.Millisecond).String()
}

package main

import (
	"fmt"
	"math"
	"strings"
)

// Chart geometry: a label column, a plot area, a value column.
const (
	chartW    = 1000
	plotL     = 200
	plotR     = 700
	valueX    = 712
	rowH      = 22
	barH      = 14
	panelHead = 76
)

// Colors: the service, PocketBase's own API (the peer), requests without items.
const (
	colorOurs   = "#2563eb"
	colorOursLt = "#93c5fd"
	colorPeer   = "#ea580c"
	colorPeerLt = "#fdba74"
	colorPlain  = "#64748b"
	colorPlainL = "#cbd5e1"
)

// logAxis maps values onto the plot on a log scale spanning whole decades.
type logAxis struct{ lo, hi float64 } // decades: 10^lo .. 10^hi

func newLogAxis(values []float64) logAxis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return logAxis{0, 1}
	}
	a := logAxis{math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))}
	if a.hi <= a.lo {
		a.hi = a.lo + 1
	}
	return a
}

func (a logAxis) x(v float64) float64 {
	if v <= 0 {
		return plotL
	}
	f := (math.Log10(v) - a.lo) / (a.hi - a.lo)
	return plotL + math.Max(0, math.Min(1, f))*(plotR-plotL)
}

func decadeLabel(e float64) string {
	v := math.Pow(10, e)
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%gk", v/1e3)
	default:
		return fmt.Sprintf("%g", v)
	}
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

type svg struct{ b strings.Builder }

func (s *svg) f(format string, args ...any) { fmt.Fprintf(&s.b, format+"\n", args...) }

func (s *svg) text(x, y float64, anchor, class, text string) {
	s.f(`<text x="%.1f" y="%.1f" text-anchor="%s" class="%s">%s</text>`, x, y, anchor, class, esc(text))
}

func (s *svg) rect(x, y, w, h float64, fill string) {
	s.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="2" fill="%s"/>`, x, y, math.Max(w, 1), h, fill)
}

// grid draws the decade lines and their labels for a panel's rows.
func (s *svg) grid(a logAxis, top, bottom float64, unit string) {
	for e := a.lo; e <= a.hi; e++ {
		x := a.x(math.Pow(10, e))
		s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e8f0"/>`, x, top, x, bottom)
		s.text(x, bottom+14, "middle", "axis", decadeLabel(e))
	}
	s.text(plotR, bottom+28, "end", "axis", unit+" (log scale)")
}

func colors(r scenarioResult) (dark, light string) {
	switch {
	case strings.HasPrefix(r.Name, "peer"):
		return colorPeer, colorPeerLt
	case r.Unit == "":
		return colorPlain, colorPlainL
	default:
		return colorOurs, colorOursLt
	}
}

// chartRow is one bar of the chart: a scenario or a kind of the mixed load.
type chartRow struct {
	label string
	r     scenarioResult
}

func (r *report) chartRows() []chartRow {
	var rows []chartRow
	for _, s := range r.Scenarios {
		rows = append(rows, chartRow{s.Name, s})
		for _, k := range s.Kinds {
			rows = append(rows, chartRow{s.Name + " · " + k.Name, k})
		}
	}
	return rows
}

// chart is a two-panel horizontal bar chart: throughput per scenario, then
// p50 and p95 latency, with the machine as the caption.
func (r *report) chart() string {
	rows := r.chartRows()
	var rates, lats []float64
	for _, x := range rows {
		rates = append(rates, rate(x.r))
		lats = append(lats, x.r.Latency.P50, x.r.Latency.P95)
	}
	rateAxis, latAxis := newLogAxis(rates), newLogAxis(lats)
	panel := float64(panelHead + len(rows)*rowH + 40)
	height := 2*panel + 80

	var s svg
	s.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="system-ui, -apple-system, Segoe UI, sans-serif">`,
		chartW, height, chartW, height)
	s.f(`<style>.title{font-size:16px;font-weight:600;fill:#0f172a}.sub{font-size:12px;fill:#475569}` +
		`.label{font-size:12px;fill:#0f172a}.value{font-size:11.5px;fill:#334155}.axis{font-size:10.5px;fill:#64748b}` +
		`.cap{font-size:11.5px;fill:#475569}</style>`)
	s.f(`<rect width="100%%" height="100%%" fill="#ffffff"/>`)

	// panel 1: throughput
	c := r.Config
	s.text(16, 26, "start", "title", "Catalog Enrichment load harness: throughput per scenario")
	s.text(16, 44, "start", "sub", fmt.Sprintf("Closed loop over loopback, %s a scenario, %s products. Items/s where requests carry products or proposals, else requests/s.",
		c.DurationText, thousands(float64(c.Products))))
	legend := []struct{ color, text string }{{colorOurs, "the service"}, {colorPeer, "PocketBase records API (peer)"}, {colorPlain, "requests without items"}}
	x := 16.0
	for _, l := range legend {
		s.rect(x, 52, 10, 10, l.color)
		s.text(x+14, 61, "start", "sub", l.text)
		x += 28 + 6.5*float64(len(l.text))
	}
	top := float64(panelHead)
	s.grid(rateAxis, top-4, top+float64(len(rows)*rowH), "per second")
	for i, row := range rows {
		y, x := top+float64(i*rowH), row.r
		dark, _ := colors(x)
		s.text(plotL-8, y+barH-2, "end", "label", row.label)
		s.rect(plotL, y+2, rateAxis.x(rate(x))-plotL, barH, dark)
		v := rateText(x.ReqPerSec) + " req/s"
		if x.Unit != "" {
			v = rateText(x.ItemsPerSec) + " " + x.Unit + "/s · " + v
		}
		if x.Errors > 0 {
			v += fmt.Sprintf(" · %d errors", x.Errors)
		}
		s.text(valueX, y+barH-2, "start", "value", v)
	}

	// panel 2: latency
	top2 := panel + panelHead
	s.text(16, panel+26, "start", "title", "Latency per request: p50 (dark) and p95 (light)")
	s.text(16, panel+44, "start", "sub", fmt.Sprintf("Milliseconds from sending the request to the last byte of the answer; %d workers unless the name says c1/c4, one per kind in the mixed load.", c.Concurrency))
	s.grid(latAxis, top2-4, top2+float64(len(rows)*rowH), "milliseconds")
	for i, row := range rows {
		y, x := top2+float64(i*rowH), row.r
		dark, light := colors(x)
		s.text(plotL-8, y+barH-2, "end", "label", row.label)
		s.rect(plotL, y+2, latAxis.x(x.Latency.P95)-plotL, barH, light)
		s.rect(plotL, y+5, latAxis.x(x.Latency.P50)-plotL, barH-6, dark)
		s.text(valueX, y+barH-2, "start", "value", fmt.Sprintf("p50 %s · p95 %s · p99 %s ms", msText(x.Latency.P50), msText(x.Latency.P95), msText(x.Latency.P99)))
	}

	// caption
	met, total, open := 0, 0, 0
	for _, t := range r.Targets {
		switch {
		case t.Met == nil:
			open++
		case *t.Met:
			met++
			total++
		default:
			total++
		}
	}
	capY := 2*panel + 14
	s.text(16, capY, "start", "cap", "Machine: "+r.Machine.line())
	anon := "" // results from before RssAnon was sampled
	if r.Server.PeakAnonMB > 0 {
		anon = fmt.Sprintf(" (RssAnon %.0f MB, the rest mmap'd database pages)", r.Server.PeakAnonMB)
	}
	again := ""
	if re := r.Reimport; re != nil {
		again = fmt.Sprintf(", unchanged again in %.1f s", re.Seconds)
	}
	s.text(16, capY+18, "start", "cap", fmt.Sprintf("Import: %s products in %.1f s (%s products/s), peak RSS %.0f MB%s. Server peak RSS over the run: %.0f MB%s.",
		thousands(float64(r.Import.Products)), r.Import.Seconds, thousands(r.Import.ProductsPerSec), r.Import.PeakRSSMB, again, r.Server.PeakRSSMB, anon))
	s.text(16, capY+36, "start", "cap", fmt.Sprintf("Targets met: %d of %d (%d not measured in this run); the table is in bench/results/latest.md.", met, total, open))
	s.f(`</svg>`)
	return s.b.String()
}

func rate(x scenarioResult) float64 {
	if x.Unit != "" {
		return x.ItemsPerSec
	}
	return x.ReqPerSec
}

func msText(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

package main

import (
	"fmt"
	"slices"
	"strings"
)

// targetRow is one goal of the performance issue with what this run measured.
type targetRow struct {
	Name     string  `json:"name"`
	Goal     string  `json:"goal"`
	Measured string  `json:"measured"`
	Value    float64 `json:"value"`
	Met      *bool   `json:"met"` // null: not measured in this run
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return round(a/b, 3)
}

// finish computes the ratios and the targets table from the scenarios.
func (r *report) finish() {
	e500, peer := r.scenario("export500"), r.scenario("peer500")
	f500, l500 := r.scenario("export500-first"), r.scenario("export500-last")
	f100, l100 := r.scenario("export100-first"), r.scenario("export100-last")
	health, tmpl, probe := r.scenario("health"), r.scenario("templates"), r.scenario("auth-probe")
	c1, c4, mix := r.scenario("submit1000-c1"), r.scenario("submit1000-c4"), r.scenario("mixed")
	s30 := r.scenario("submit1000-c1-supersede30")

	r.Ratios = map[string]float64{
		"export500OverPeer500ItemsPerSec":  ratio(e500.ItemsPerSec, peer.ItemsPerSec),
		"export500LastOverFirstP50":        ratio(l500.Latency.P50, f500.Latency.P50),
		"export100LastOverFirstP50":        ratio(l100.Latency.P50, f100.Latency.P50),
		"templatesOverHealthP50":           ratio(tmpl.Latency.P50, health.Latency.P50),
		"healthOverTemplatesReqPerSec":     ratio(health.ReqPerSec, tmpl.ReqPerSec),
		"authProbeOverHealthP50":           ratio(probe.Latency.P50, health.Latency.P50),
		"healthOverAuthProbeReqPerSec":     ratio(health.ReqPerSec, probe.ReqPerSec),
		"export500OverPeer500P50Latency":   ratio(e500.Latency.P50, peer.Latency.P50),
		"submit1000C4OverC1ProposalPerSec": ratio(c4.ItemsPerSec, c1.ItemsPerSec),
	}

	add := func(name, goal, measured string, value float64, met *bool, needs ...*scenarioResult) {
		for _, s := range needs {
			if s.Requests == 0 {
				measured, value, met = "not run", 0, nil
			}
		}
		r.Targets = append(r.Targets, targetRow{Name: name, Goal: goal, Measured: measured, Value: value, Met: met})
	}
	if peer.Requests > 0 || !r.Config.SkipPeer {
		x := r.Ratios["export500OverPeer500ItemsPerSec"]
		add("Export vs PocketBase records API (500 a page, expand)", "≥ 3×",
			fmt.Sprintf("%.2f× (%s vs %s products/s)", x, thousands(e500.ItemsPerSec), thousands(peer.ItemsPerSec)), x, is(x >= 3), e500, peer)
	} else {
		add("Export vs PocketBase records API (500 a page, expand)", "≥ 3×", "not run (-skip-peer)", 0, nil)
	}
	for _, p := range []struct {
		size        string
		first, last *scenarioResult
	}{{"500", f500, l500}, {"100", f100, l100}} {
		x := ratio(p.last.Latency.P50, p.first.Latency.P50)
		add("Last full page vs first page, "+p.size+" a page (p50)", "≤ 1.5×",
			fmt.Sprintf("%.2f× (%.1f vs %.1f ms)", x, p.last.Latency.P50, p.first.Latency.P50), x, is(x <= 1.5), p.first, p.last)
	}
	add("Submission of 1000 items, 1 writer (p50)", "≤ 150 ms",
		fmt.Sprintf("%.1f ms (p95 %.1f ms)", c1.Latency.P50, c1.Latency.P95), c1.Latency.P50, is(c1.Latency.P50 <= 150), c1)
	add("Submission of 1000 items, 1 writer, 30% of them superseding pending proposals (p50)", "≤ 150 ms",
		fmt.Sprintf("%.1f ms (p95 %.1f ms)", s30.Latency.P50, s30.Latency.P95), s30.Latency.P50, is(s30.Latency.P50 <= 150), s30)
	lookup := r.scenario("lookup50")
	add("Lookup of 50 SKUs (p50)", "≤ 15 ms",
		fmt.Sprintf("%.1f ms (p95 %.1f ms)", lookup.Latency.P50, lookup.Latency.P95), lookup.Latency.P50, is(lookup.Latency.P50 <= 15), lookup)
	for _, m := range []struct{ name, what string }{
		{"metrics-history", "no window"},
		{"metrics-history-window", "since and until at random instants"},
		{"metrics-history-model", "one model (and version), since and until at random instants"},
	} {
		s, revisions := r.scenario(m.name), "revisions"
		if h := r.History; h != nil {
			revisions = fmt.Sprintf("%s revisions", thousands(float64(h.Revisions)))
		}
		add("Acceptance metrics of a client with "+revisions+", "+m.what+" (p50)", "≤ 5 ms",
			fmt.Sprintf("%.2f ms (p95 %.2f ms)", s.Latency.P50, s.Latency.P95), s.Latency.P50, is(s.Latency.P50 <= 5), s)
	}
	add("Proposals stored with 4 concurrent writers", "≥ 10,000/s",
		fmt.Sprintf("%s/s (p50 %.0f ms a batch)", thousands(c4.ItemsPerSec), c4.Latency.P50), c4.ItemsPerSec, is(c4.ItemsPerSec >= 10_000), c4)
	overHealth := func(s *scenarioResult) (float64, string) {
		over := 100 * (ratio(health.ReqPerSec, s.ReqPerSec) - 1)
		return round(over, 1), fmt.Sprintf("%+.1f%% (%s vs %s req/s; p50 %.2f vs %.2f ms)", over, thousands(s.ReqPerSec),
			thousands(health.ReqPerSec), s.Latency.P50, health.Latency.P50)
	}
	over, text := overHealth(probe)
	add("Key middleware vs GET /api/health: auth probe (200, the templates of an empty organization)", "≤ 10% slower",
		text, over, is(over <= 10), health, probe)
	// note: not a goal of its own: beyond the key check it writes a 42 KB answer
	over, text = overHealth(tmpl)
	add("For comparison, a whole read endpoint vs GET /api/health: attribute-templates (a 42 KB answer)", "–",
		text, over, nil, health, tmpl)
	all5xx, allErr := 0, 0
	for _, s := range r.Scenarios {
		if s.Attack == nil { // an attack's 503s are its measure
			all5xx += s.Status5xx
		}
		allErr += s.Errors
	}
	logs := r.Server.Logs
	add("Mixed load: 5xx answers", "0",
		fmt.Sprintf("%d (all scenarios: %d; server log: %d)", mix.Status5xx, all5xx, logs.Requests5xx), float64(mix.Status5xx), is(mix.Status5xx == 0), mix)
	locked := mix.Locked + logs.Locked + logs.OutputLocked
	add(`Mixed load: "database is locked"`, "0",
		fmt.Sprintf("%d (answers %d, server log %d, output %d)", locked, mix.Locked, logs.Locked, logs.OutputLocked), float64(locked), is(locked == 0), mix)
	if r.Soak != nil {
		allErr += r.Soak.Errors
	}
	add("Failed requests, all scenarios", "0",
		fmt.Sprintf("%d (server log: %d errors, %d unexpected 4xx)", allErr, logs.Errors, logs.Unexpected4xx), float64(allErr), is(allErr == 0))
	if w := r.Webhooks; w != nil {
		// note: no goals of the for latency and throughput; they are
		// reported as measured
		add("Webhook delivery, from queueing to arrival at a local receiver (p50)", "–",
			fmt.Sprintf("%.2f ms (p95 %.2f ms, %d pings one at a time)", w.LatencyP50Ms, w.LatencyP95Ms, w.Pings), w.LatencyP50Ms, nil)
		add("Webhook deliveries to a local receiver, 8 subscriptions", "–",
			fmt.Sprintf("%s deliveries/s (%d deliveries)", thousands(w.DeliveriesPerSec), w.Deliveries), w.DeliveriesPerSec, nil)
		x := ratio(w.ExportHung.Latency.P50, e500.Latency.P50)
		add("Export (500 a page, p50) beside 8 deliveries hanging on a dead receiver vs without", "≤ 1.1×",
			fmt.Sprintf("%.2f× (%.1f vs %.1f ms)", x, w.ExportHung.Latency.P50, e500.Latency.P50), x, is(x <= 1.1), e500, &w.ExportHung)
	}
	r.importTargets(add)
	r.Server.PeakAnonMB = 0
	for _, s := range r.Scenarios {
		r.Server.PeakAnonMB = max(r.Server.PeakAnonMB, s.ServerAnonPeakMB)
	}
	if r.Soak != nil {
		r.Server.PeakAnonMB = max(r.Server.PeakAnonMB, r.Soak.Load.ServerAnonPeakMB)
	}
	r.attackTargets(add)
	r.memoryTargets(add, mix)
}

// addTarget adds a row to the targets table; a row whose needs include a
// scenario this run did not measure says "not run".
type addTarget func(name, goal, measured string, value float64, met *bool, needs ...*scenarioResult)

// importTargets adds the rows of the import's speed, memory and re-import.
func (r *report) importTargets(add addTarget) {
	in := r.Import
	add(fmt.Sprintf("Import speed (%s products)", thousands(float64(in.Products))), "≥ 20,000 products/s",
		fmt.Sprintf("%s products/s (%.1f s for %.0f MB)", thousands(in.ProductsPerSec), in.Seconds, in.FileMB), in.ProductsPerSec, is(in.ProductsPerSec >= 20_000))
	add("Import peak memory (max RSS)", "≤ 300 MB", fmt.Sprintf("%.0f MB", in.PeakRSSMB), in.PeakRSSMB, is(in.PeakRSSMB <= 300))
	if sh := r.ImportShopify; sh != nil {
		add(fmt.Sprintf("Import speed, Shopify CSV (%s variants)", thousands(float64(sh.Products))), "≥ 20,000 products/s",
			fmt.Sprintf("%s products/s (%.1f s for %.0f MB); peak RSS %.0f MB", thousands(sh.ProductsPerSec), sh.Seconds, sh.FileMB, sh.PeakRSSMB),
			sh.ProductsPerSec, is(sh.ProductsPerSec >= 20_000 && sh.PeakRSSMB <= 300))
	}
	if re := r.Reimport; re != nil {
		speedup := ratio(in.Seconds, re.Seconds)
		add("Re-import of the unchanged file vs the first import (wall time)", "≥ 3× faster",
			fmt.Sprintf("%.2f× (%.2f s, %s products/s, vs %.2f s); nothing written; peak RSS %.0f MB",
				speedup, re.Seconds, thousands(re.ProductsPerSec), in.Seconds, re.PeakRSSMB), speedup, is(speedup >= 3))
	}
}

// memoryTargets adds the row of the server's memory under the mixed load
// and, when the soak ran, over it.
func (r *report) memoryTargets(add addTarget, mix *scenarioResult) {
	// VmRSS includes the memory-mapped database pages (file cache, growing
	// with the file); RssAnon is the process's own memory
	memText := fmt.Sprintf("peak %.0f MB VmRSS under the mixed load (%.0f MB at its end); whole run: VmHWM %.0f MB; RssAnon not recorded in this result",
		mix.ServerRSSPeakMB, mix.ServerRSSEndMB, r.Server.PeakRSSMB)
	if mix.ServerAnonPeakMB > 0 {
		memText = fmt.Sprintf("peak %.0f MB RssAnon, %.0f MB VmRSS under the mixed load (%.0f MB and %.0f MB at its end); whole run: VmHWM %.0f MB, RssAnon ≤ %.0f MB",
			mix.ServerAnonPeakMB, mix.ServerRSSPeakMB, mix.ServerAnonEndMB, mix.ServerRSSEndMB, r.Server.PeakRSSMB, r.Server.PeakAnonMB)
	}
	const memGoal = "no growth of anonymous memory (RssAnon) over the soak (≤ 10%)"
	switch s := r.Soak; {
	case s != nil && s.anonMeasured():
		add("Server memory under the mixed load", memGoal,
			fmt.Sprintf("%+.1f%% anonymous memory over %s (%.0f → %.0f MB RssAnon, the process's own heap and stacks; "+
				"VmRSS %.0f → %.0f MB, %+.1f%%, including memory-mapped database pages, which grow with the file; %d failed requests); %s",
				s.GrowthPercent, minutesText(s.Minutes), s.EarlyAnonMB, s.LateAnonMB, s.EarlyRSSMB, s.LateRSSMB, s.RSSGrowth, s.Errors, memText),
			s.GrowthPercent, is(s.GrowthPercent <= 10 && s.Status5xx == 0))
	case s != nil:
		// results from before RssAnon was sampled: their growth is VmRSS's
		add("Server memory under the mixed load", memGoal,
			fmt.Sprintf("%+.1f%% VmRSS over %s (%.0f → %.0f MB, %d failed requests; VmRSS includes memory-mapped database pages, "+
				"which grow with the file); %s",
				s.GrowthPercent, minutesText(s.Minutes), s.EarlyRSSMB, s.LateRSSMB, s.Errors, memText),
			s.GrowthPercent, is(s.GrowthPercent <= 10 && s.Status5xx == 0))
	default:
		add("Server memory under the mixed load", memGoal, memText+"; soak not run (-soak 10m)", mix.ServerRSSPeakMB, nil, mix)
	}
}

// minutesText is a soak's length: whole minutes, or tenths of short ones.
func minutesText(m float64) string {
	if m < 10 {
		return fmt.Sprintf("%.1f min", m)
	}
	return fmt.Sprintf("%.0f min", m)
}

func is(b bool) *bool { return &b }

// thousands renders a rate without decimals and with thousands separators.
func thousands(x float64) string {
	s := fmt.Sprintf("%.0f", x)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// rateText is a rate for people: whole numbers with separators, one
// decimal below 10 (the peer manages about one page a second).
func rateText(x float64) string {
	if x < 10 {
		return fmt.Sprintf("%.1f", x)
	}
	return thousands(x)
}

func metText(m *bool) string {
	switch {
	case m == nil:
		return "–"
	case *m:
		return "yes"
	default:
		return "**no**"
	}
}

// markdown is the targets table and the scenario table, ready for docs/performance.md.
func (r *report) markdown() string {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "Measured with `go run ./bench` (%s products, %d workers, %s a scenario) on %s.\n\n",
		thousands(float64(c.Products)), c.Concurrency, c.DurationText, r.Machine.line())
	b.WriteString("| Target | Goal | Measured | Met |\n|---|---|---|---|\n")
	for _, t := range r.Targets {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.Name, t.Goal, t.Measured, metText(t.Met))
	}
	b.WriteString("\n| Scenario | Workers | req/s | items/s | p50 ms | p95 ms | p99 ms | max ms | errors | server peak RSS MB (anon) | CPU cores: server / harness / others |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(s scenarioResult, indent string) {
		items := "–"
		if s.Unit != "" {
			items = rateText(s.ItemsPerSec) + " " + s.Unit
		}
		rss, cpu := "–", "–"
		if indent == "" {
			rss = fmt.Sprintf("%.0f", s.ServerRSSPeakMB)
			if s.ServerAnonPeakMB > 0 { // 0: results from before RssAnon was sampled
				rss += fmt.Sprintf(" (anon %.0f)", s.ServerAnonPeakMB)
			}
			cpu = fmt.Sprintf("%.2f / %.2f / %.2f", s.ServerCPU, s.ClientCPU, s.OtherCPU)
		}
		fmt.Fprintf(&b, "| %s%s | %d | %s | %s | %.1f | %.1f | %.1f | %.1f | %d | %s | %s |\n", indent, s.Name, s.Workers,
			rateText(s.ReqPerSec), items, s.Latency.P50, s.Latency.P95, s.Latency.P99, s.Latency.Max, s.Errors, rss, cpu)
	}
	all := r.Scenarios
	if r.Soak != nil {
		all = append(slices.Clone(all), r.Soak.Load)
	}
	for _, s := range all {
		row(s, "")
		for _, k := range s.Kinds {
			row(k, "↳ ")
		}
	}
	anon := "RssAnon, the process's own memory, was not recorded in this result; its RSS includes memory-mapped database pages"
	if r.Server.PeakAnonMB > 0 {
		anon = fmt.Sprintf("its anonymous memory (RssAnon, the process's own heap and stacks) peaked at %.0f MB, "+
			"the rest of its RSS is mostly memory-mapped database pages", r.Server.PeakAnonMB)
	}
	fmt.Fprintf(&b, "\nImport: %s products (%.0f MB of JSON) in %.1f s, %s products/s, peak RSS %.0f MB (CPU: import %.2f, others %.2f cores). "+
		"Server peak RSS over the run: %.0f MB (VmHWM); %s, "+
		"file cache that grows with the database. CPU is in cores: the harness shares the machine with the server, "+
		"and \"others\" is whatever else ran on it meanwhile (noise).\n",
		thousands(float64(r.Import.Products)), r.Import.FileMB, r.Import.Seconds, thousands(r.Import.ProductsPerSec),
		r.Import.PeakRSSMB, r.Import.CPU, r.Import.OtherCPU, r.Server.PeakRSSMB, anon)
	if rp := r.Replication; rp != nil {
		b.WriteString("\nReplication (`-replica`: serve replicates data.db with Litestream to a folder beside it). Lag the server reported, sampled every 250 ms:\n\n")
		b.WriteString("| Scenario | mean s | p95 s | max s | samples over 1 s |\n|---|---:|---:|---:|---:|\n")
		for _, s := range r.Scenarios {
			if l := s.ReplicaLag; l != nil {
				fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.2f | %.1f%% of %d |\n", s.Name, l.MeanSeconds, l.P95Seconds, l.MaxSeconds, l.BehindPercent, l.Samples)
			}
		}
		fmt.Fprintf(&b, "\nRestore of the replica into an empty folder (`restore`, after the server stopped): %s products and %s revisions, "+
			"%.0f MB, in %.2f s (peak RSS %.0f MB); the same counts as the server's data.db: %v. Replica folder %.0f MB, Litestream's local state %.0f MB.\n",
			thousands(float64(rp.Products)), thousands(float64(rp.Revisions)), rp.RestoredMB, rp.RestoreSeconds, rp.RestorePeakMB,
			rp.SameAsServer, rp.ReplicaMB, rp.LocalStateMB)
	}
	if re := r.Reimport; re != nil {
		fmt.Fprintf(&b, "\nRe-import of the same file: %s products, %s unchanged, in %.2f s, %s products/s, peak RSS %.0f MB (CPU: import %.2f, others %.2f cores).\n",
			thousands(float64(re.Products)), thousands(float64(re.Unchanged)), re.Seconds, thousands(re.ProductsPerSec),
			re.PeakRSSMB, re.CPU, re.OtherCPU)
	}
	return b.String()
}

// attackTargets adds the goals of the memory attacks: the server's own
// memory under the attack, another key's small requests meanwhile, and the
// memory's return once the attack ends.
func (r *report) attackTargets(add addTarget) {
	for _, a := range []struct{ name, what string }{
		{"attack", "40 concurrent 16 MiB submissions from one key"},
		{"attack-80", "80 concurrent 16 MiB submissions from four unlimited keys"},
	} {
		s := r.scenario(a.name)
		if s.Attack == nil {
			add("Server memory (RssAnon) under "+a.what, "< 1 GiB", "not run (-only attack)", 0, nil)
			continue
		}
		m, attack, bystander := s.Attack, s.kind(a.name), s.kind(a.name+"-bystander")
		add("Server memory (RssAnon) under "+a.what, "< 1 GiB",
			fmt.Sprintf("peak %.0f MB (%.0f MB before); the submissions: %d answered 200, %d 503 (busy), %d 429 (rate limit)",
				m.PeakAnonMB, m.IdleAnonMB, attack.Status["200"], attack.Status["503"], attack.Status["429"]),
			m.PeakAnonMB, is(m.PeakAnonMB < 1024), s)
		add("Another key's small requests during that attack (a page of 20 products)", "all answered",
			fmt.Sprintf("p50 %.1f ms, p95 %.1f ms, max %.0f ms; %d requests, %d failed",
				bystander.Latency.P50, bystander.Latency.P95, bystander.Latency.Max, bystander.Requests, bystander.Errors),
			bystander.Latency.P50, is(bystander.Requests > 0 && bystander.Errors == 0), s)
		back := fmt.Sprintf("not within %s", attackSettle)
		if m.ReturnSeconds >= 0 {
			back = fmt.Sprintf("%.1f s", m.ReturnSeconds)
		}
		add("Memory back near its level before, once that attack ends", "≤ 10 s",
			fmt.Sprintf("%s (RssAnon within %.0f MB of %.0f MB; %.0f MB at the end of the watch)",
				back, mb(nearIdle), m.IdleAnonMB, m.AfterAnonMB),
			m.ReturnSeconds, is(m.ReturnSeconds >= 0 && m.ReturnSeconds <= 10), s)
	}
}

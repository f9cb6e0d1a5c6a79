package main

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/catalog-enrichment/enrichment/replica"
)

// scenario is a closed loop of workers, each bound to one kind of request.
type scenario struct {
	Name     string
	About    string
	Workers  []assignment
	Duration time.Duration // 0: the -duration flag
	// Settle, when set, measures the server's memory around the load: its
	// level before, and how long (watched up to Settle) it takes to come
	// back once the load ends.
	Settle time.Duration
}

// one is a scenario of n workers of a single kind.
func one(about string, k *kind, n int) scenario {
	sc := scenario{Name: k.Name, About: about}
	for i := range n {
		sc.Workers = append(sc.Workers, assignment{Kind: k, Seed: seed(k.Name, i)})
	}
	return sc
}

func seed(name string, i int) uint64 {
	h := fnv.New64a()
	io.WriteString(h, name+"/"+strconv.Itoa(i))
	return h.Sum64()
}

// scenarios are the measured loads, in order: reads first, the submissions,
// then the metrics over what they stored, and everything at once last.
func scenarios(t *target, cfg config) []scenario {
	c := cfg.Concurrency
	list := []scenario{
		one("GET /api/health: PocketBase's own route, no key, no query", t.health(), c),
		one("GET /attribute-templates: key check, then the organization's templates", t.templates(), c),
		one("GET /attribute-templates of an empty organization: key and scope checks, then [] from the cache", t.authProbe(), c),
		one("GET /products, 500 a page, random pages", t.export("export500", 500, "random"), c),
		one("GET /products, 100 a page, random pages", t.export("export100", 100, "random"), c),
		one("GET /products, 500 a page, the first page", t.export("export500-first", 500, "first"), c),
		one("GET /products, 500 a page, the last full page", t.export("export500-last", 500, "last"), c),
		one("GET /products, 100 a page, the first page", t.export("export100-first", 100, "first"), c),
		one("GET /products, 100 a page, the last full page", t.export("export100-last", 100, "last"), c),
		one("GET /products, 500 a page, random pages, gzip accepted", t.compressedExport("export500-gzip", "gzip"), c),
		one("GET /products, 500 a page, random pages, zstd accepted", t.compressedExport("export500-zstd", "zstd"), c),
		one("POST /products/skus, 50 random existing SKUs", t.lookup("lookup50", 50), c),
		one("GET /gaps, 100 a page, random pages", t.gaps("gaps100", 100, "random"), c),
		one("GET /gaps, 100 a page, the first page", t.gaps("gaps100-first", 100, "first"), c),
		one("GET /gaps, 100 a page, the last full page", t.gaps("gaps100-last", 100, "last"), c),
	}
	if t.SuToken != "" {
		list = append(list, one("PocketBase's GET /api/collections/products/records, perPage 500, "+
			"expand brand, attributeTemplate, variantMaster, as a superuser, random pages", t.peer("peer500"), c))
		list = append(list, dashboardScenarios(t, c)...)
	}
	list = append(list,
		one("POST /products/submissions, 1000 proposals a batch for products the client has none pending for, 1 writer",
			t.submit("submit1000-c1", 1000, 1, 0), 1),
		one("MCP tools/call propose, the batches of submit1000-c1 (1000 proposals, none pending) from a client of its own, 1 session",
			t.proposeMCP(mcpPropose, 1000, 1), 1),
		one("MCP: 50 agents with a session each, list_gaps (20 a page) and find_products (20 SKUs) in turn",
			t.agentsAtOnce(mcpSessions), 50),
		one("POST /products/submissions, 1000 proposals a batch, 30% of them superseding the client's pending ones, 1 writer",
			t.submit("submit1000-c1-supersede30", 1000, 2, 0.3), 1),
		one("POST /products/submissions, 1000 proposals a batch, 4 writers", t.submit("submit1000-c4", 1000, 4, 0), 4),
		one("POST /products/submissions, 1000 proposals a batch, every one superseding the client's pending one, 1 writer",
			t.submit("submit1000-c1-supersede100", 1000, 5, 1), 1),
		one("POST /products/submissions, 1000 proposals a batch, every one superseding the client's pending one, 4 writers",
			t.submit("submit1000-c4-supersede100", 1000, 6, 1), 4),
		one("GET /acceptance-rate over everything the 4 writers submitted", t.metrics(), c),
	)
	if t.HistoryKey != "" {
		list = append(list,
			one(fmt.Sprintf("GET /acceptance-rate of a client with %d revisions over a year, no window", cfg.Revisions),
				t.metricsHistory("metrics-history", false, false), c),
			one(fmt.Sprintf("GET /acceptance-rate of a client with %d revisions over a year, since and until at random instants", cfg.Revisions),
				t.metricsHistory("metrics-history-window", true, false), c),
			one(fmt.Sprintf("GET /acceptance-rate of a client with %d revisions over a year, one model (and version), since and until at random instants", cfg.Revisions),
				t.metricsHistory("metrics-history-model", true, true), c),
		)
	}
	list = append(list,
		one(fmt.Sprintf("GET /metrics with the metrics token: %d organizations, the revisions of -revisions", scrapeOrganizations),
			t.scrape(), 1),
		mixed(t, cfg, "mixed"))
	// note: last, so that the memory they measure is not what an earlier
	// scenario left; the bodies are made only when an attack will run
	if !cfg.runs("attack") && !cfg.runs("attack-80") {
		return list
	}
	bodies := t.attackBodies()
	return append(list,
		attackScenario(t, "attack", "40 concurrent 16 MiB dry-run submissions from one key with the default rate limit "+
			"(long descriptions, many small attributes, in turn), and another key's small requests", 40, []string{t.AttackKey}, bodies),
		attackScenario(t, "attack-80", "80 concurrent 16 MiB dry-run submissions from four unlimited keys, "+
			"and another key's small requests", 80, t.AttackKeys, bodies),
	)
}

// mixed runs every kind of the service's load at once with an equal share
// of workers: at least one each, more when -concurrency exceeds the number
// of kinds. The peer is not in it: it is measured alone, and inside the mix
// the server's memory followed PocketBase's records API (its anonymous
// memory swung between 0.3 and 1.2 GB with each 500-record expand) and its
// queries hit the 30 s timeout.
func mixed(t *target, cfg config, name string) scenario {
	kinds := []*kind{
		t.export("export500", 500, "random"), t.export("export100", 100, "random"),
		t.export("export500-last", 500, "last"), t.lookup("lookup50", 50),
		t.submit("submit1000", 1000, 9, 0.3), t.metrics(), t.templates(), t.health(),
	}
	per := (cfg.Concurrency + len(kinds) - 1) / len(kinds)
	sc := scenario{Name: name, About: fmt.Sprintf("all kinds at once, %d worker(s) each", per)}
	for i := range per {
		for _, k := range kinds {
			sc.Workers = append(sc.Workers, assignment{Kind: k, Seed: seed(name+"/"+k.Name, i)})
		}
	}
	return sc
}

type harness struct {
	ctx          context.Context
	srv          *server
	cfg          config
	profDir      string // where the profiling build writes a CPU profile per scenario
	replicaToken string // a superuser's, to read the replication status (-replica)
}

// profile starts (a name) or stops ("") the profiling build's CPU profile.
func (h *harness) profile(name string) {
	if h.profDir == "" {
		return
	}
	sig := syscall.SIGUSR2
	if name != "" {
		if err := os.WriteFile(filepath.Join(h.profDir, "next"), []byte(name+".prof"), 0o644); err != nil {
			logf("profile %s: %v", name, err)
			return
		}
		sig = syscall.SIGUSR1
	}
	_ = h.srv.cmd.Process.Signal(sig)
	time.Sleep(100 * time.Millisecond) // let the server act on it before the load
}

// run probes each kind once, then runs the closed loop and summarizes it.
func (h *harness) run(sc scenario, series bool) scenarioResult {
	d := sc.Duration
	if d == 0 {
		d = h.cfg.Duration
	}
	var kinds []*kind
	for _, w := range sc.Workers {
		if !slices.Contains(kinds, w.Kind) {
			kinds = append(kinds, w.Kind)
		}
	}
	waitIdle(h.ctx, h.cfg.WaitIdle, h.srv.pid(), sc.Name)
	var notes []string
	for _, k := range kinds {
		if note := h.probe(k); note != "" {
			notes = append(notes, note)
		}
	}
	var idle int64
	if sc.Settle > 0 {
		idle = h.idleAnon()
	}
	h.profile(sc.Name)
	var lags *lagSampler
	if h.replicaToken != "" {
		lags = startLagSampler(h.srv.base, h.replicaToken)
	}
	cpu0, self0, all0 := cpuSeconds(h.srv.pid()), selfCPU(), machineBusy()
	start := time.Now()
	tallies, elapsed := runLoad(h.ctx, h.srv.base, sc.Workers, d)
	end := time.Now()
	cpu1, self1, all1 := cpuSeconds(h.srv.pid()), selfCPU(), machineBusy()
	h.profile("")

	all := newTally()
	var parts []scenarioResult
	for _, k := range kinds {
		t := tallies[k.Name]
		all.merge(t)
		if len(kinds) > 1 {
			parts = append(parts, summary(k.Name, "", countOf(sc.Workers, k), k.Unit, t, elapsed))
		}
	}
	unit := ""
	if len(kinds) == 1 {
		unit = kinds[0].Unit
	}
	r := summary(sc.Name, sc.About, len(sc.Workers), unit, all, elapsed)
	r.Kinds, r.Notes = parts, notes
	if lags != nil {
		r.ReplicaLag = lags.finish()
	}
	r.ServerCPU = round((cpu1-cpu0)/elapsed.Seconds(), 2)
	r.ClientCPU = round((self1-self0)/elapsed.Seconds(), 2)
	r.OtherCPU = round(max(0, (all1-all0)-(cpu1-cpu0)-(self1-self0))/elapsed.Seconds(), 2)
	window := h.srv.window(start, end)
	for _, s := range window {
		r.ServerRSSPeakMB = max(r.ServerRSSPeakMB, mb(s.RSS))
		r.ServerAnonPeakMB = max(r.ServerAnonPeakMB, mb(s.Anon))
	}
	if len(window) > 0 {
		r.ServerRSSEndMB = mb(window[len(window)-1].RSS)
		r.ServerAnonEndMB = mb(window[len(window)-1].Anon)
	}
	if series {
		r.RSSSeries, r.AnonSeries = downsample(window, start)
	}
	if sc.Settle > 0 {
		a := h.settle(idle, end, sc.Settle)
		a.PeakAnonMB = r.ServerAnonPeakMB
		r.Attack = &a
		logf("%-16s RssAnon %.0f MB before, peak %.0f MB, back within %.0f MB of it %.2f s after the last answer (%.0f MB then)",
			r.Name, a.IdleAnonMB, a.PeakAnonMB, mb(nearIdle), a.ReturnSeconds, a.AfterAnonMB)
	}
	logf("%-16s %6d req %9.1f req/s %s p50 %8.2f ms  p95 %8.2f ms  p99 %8.2f ms  errors %d  server RSS ≤ %.0f MB (anon ≤ %.0f MB), CPU: server %.2f, harness %.2f, others %.2f",
		r.Name, r.Requests, r.ReqPerSec, itemsText(r), r.Latency.P50, r.Latency.P95, r.Latency.P99, r.Errors,
		r.ServerRSSPeakMB, r.ServerAnonPeakMB, r.ServerCPU, r.ClientCPU, r.OtherCPU)
	if l := r.ReplicaLag; l != nil {
		logf("  replication lag: mean %.2f s, p95 %.2f s, max %.2f s; over %s in %.1f%% of %d samples; errors %d",
			l.MeanSeconds, l.P95Seconds, l.MaxSeconds, replica.Window, l.BehindPercent, l.Samples, l.Errors)
	}
	if r.OtherCPU > 0.2 {
		logf("  warning: other processes used %.2f cores during %s: its figures are low", r.OtherCPU, r.Name)
	}
	for _, n := range notes {
		logf("  note: %s", n)
	}
	for _, s := range r.Samples {
		logf("  unexpected answer: %s", s)
	}
	return r
}

func itemsText(r scenarioResult) string {
	if r.Unit == "" {
		return fmt.Sprintf("%22s", "")
	}
	return fmt.Sprintf("%10.0f %-11s", r.ItemsPerSec, r.Unit+"/s")
}

func countOf(ws []assignment, k *kind) int {
	n := 0
	for _, w := range ws {
		if w.Kind == k {
			n++
		}
	}
	return n
}

// probe sends one request of the kind and checks its status and items, so
// a broken scenario is reported instead of measured.
func (h *harness) probe(k *kind) string {
	r := k.Next(rand.New(rand.NewPCG(1, 2)), 1<<30)
	ctx, cancel := context.WithTimeout(h.ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, h.srv.base+r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return k.Name + ": " + err.Error()
	}
	req.Header = k.Header.Clone()
	resp, err := newClient(1).Do(req)
	if err != nil {
		return k.Name + ": probe failed: " + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != k.wantStatus() {
		return fmt.Sprintf("%s: probe got %d, want %d: %s", k.Name, resp.StatusCode, k.wantStatus(), shorten(string(body), 300))
	}
	if k.Count != nil && k.Unit != "" && k.Count(body) == 0 {
		return fmt.Sprintf("%s: probe answer has no %s: %s", k.Name, k.Unit, shorten(string(body), 300))
	}
	return ""
}

// idleLimit is how much CPU other processes may use for the machine to
// count as idle, in cores.
const idleLimit = 0.3

// waitIdle waits, up to limit, for a two-second window in which processes
// other than the harness and the server (pid; 0 for none) use less than
// idleLimit.
func waitIdle(ctx context.Context, limit time.Duration, pid int, name string) {
	if limit <= 0 {
		return
	}
	deadline := time.Now().Add(limit)
	for ctx.Err() == nil {
		srv0, self0, all0 := cpuSeconds(pid), selfCPU(), machineBusy()
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
		others := ((machineBusy() - all0) - (cpuSeconds(pid) - srv0) - (selfCPU() - self0)) / 2
		if others < idleLimit {
			return
		}
		if time.Now().After(deadline) {
			logf("%s: other processes still use %.2f cores after waiting %s; measuring anyway", name, others, limit)
			return
		}
	}
}

// selfCPU is the harness's own CPU time: on 2 cores the load generator
// competes with the server, so the report shows both.
func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// downsample keeps about one sample a second: the VmRSS and the RssAnon
// series, each point [seconds, MB], at the same times.
func downsample(s []sample, start time.Time) (rss, anon [][2]float64) {
	last := -1.0
	for _, x := range s {
		t := x.At.Sub(start).Seconds()
		if last < 0 || t-last >= 1 {
			rss = append(rss, [2]float64{round(t, 1), mb(x.RSS)})
			anon = append(anon, [2]float64{round(t, 1), mb(x.Anon)})
			last = t
		}
	}
	return rss, anon
}

// Command bench is the service's load harness. It builds the binary,
// generates a deterministic catalog (100k products by default), imports it
// (measuring time and peak memory), starts `serve` on a loopback port and
// runs each scenario as a closed loop for a fixed duration, including the
// same export through PocketBase's own records API as the peer. Results go
// to bench/results: latest.json, latest.md (the targets table) and
// latest.svg (the chart).
//
//	go run ./bench                 # the default run: 100k products, 4 workers, 10 s a scenario
//	go run ./bench -duration 3s -products 20000 -skip-peer
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/replica"
)

type config struct {
	Products    int           `json:"products"`
	Concurrency int           `json:"concurrency"`
	Duration    time.Duration `json:"-"`
	Soak        time.Duration `json:"-"`
	SkipPeer    bool          `json:"skipPeer"`
	Keep        bool          `json:"-"`
	Out         string        `json:"-"`
	Only        string        `json:"only,omitempty"`
	WaitIdle    time.Duration `json:"-"`
	CPUProfile  string        `json:"cpuProfile,omitempty"`
	Revisions   int           `json:"revisions"`
	Replica     bool          `json:"replica,omitempty"`
	// for the report
	DurationText string `json:"duration"`
	SoakText     string `json:"soak"`
}

func main() {
	var cfg config
	flag.IntVar(&cfg.Products, "products", gen.Bench().Products, "products in the generated catalog")
	flag.IntVar(&cfg.Concurrency, "concurrency", 4, "workers per scenario (the submissions use 1 and 4 whatever this says)")
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long each scenario runs")
	flag.StringVar(&cfg.Out, "out", "", "results folder (default bench/results in the repository)")
	flag.DurationVar(&cfg.Soak, "soak", 0, "after the scenarios, run the mixed load this long and check the server's memory does not grow (e.g. 10m)")
	flag.BoolVar(&cfg.SkipPeer, "skip-peer", false, "skip PocketBase's records API (the peer)")
	flag.BoolVar(&cfg.Keep, "keep", false, "keep the temporary folder (binary, catalog, data folder, server log)")
	flag.DurationVar(&cfg.WaitIdle, "wait-idle", 0, "before each scenario, wait up to this long for other processes to leave the CPUs alone (a shared machine)")
	flag.StringVar(&cfg.CPUProfile, "cpuprofile", "", "serve a profiling build of the service (bench/profserver) and write a CPU profile per scenario into this folder")
	render := flag.String("render", "", "only recompute the targets and redraw latest.md and latest.svg of this latest.json (after a change to the harness)")
	flag.IntVar(&cfg.Revisions, "revisions", 1_000_000, "revisions of one API client's year of proposals, for the metrics-history scenarios (0 skips them)")
	flag.StringVar(&cfg.Only, "only", "", "run only these scenarios, comma-separated (e.g. health,auth-probe); the default runs all")
	flag.BoolVar(&cfg.Replica, "replica", false, "serve replicates data.db to a folder beside it (Litestream): each scenario records the replication lag, and the end times a restore")
	flag.Parse()
	if *render != "" {
		if err := rerender(*render); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if cfg.Products < 2000 || cfg.Concurrency < 1 || cfg.Duration <= 0 || cfg.Soak < 0 || cfg.Revisions < 0 {
		fmt.Fprintln(os.Stderr, "bench: need -products ≥ 2000, -concurrency ≥ 1, -duration > 0, -soak ≥ 0, -revisions ≥ 0")
		os.Exit(2)
	}
	cfg.DurationText, cfg.SoakText = cfg.Duration.String(), cfg.Soak.String()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, cfg)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// runs reports whether the scenario named is to be run (-only).
func (c config) runs(name string) bool {
	if strings.TrimSpace(c.Only) == "" {
		return true
	}
	for _, n := range strings.Split(c.Only, ",") {
		if strings.TrimSpace(n) == name {
			return true
		}
	}
	return false
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, cfg config) (err error) {
	root, err := findRoot()
	if err != nil {
		return err
	}
	out := cfg.Out
	if out == "" {
		out = filepath.Join(root, "bench", "results")
	}
	tmp, err := os.MkdirTemp("", "enrichment-bench-")
	if err != nil {
		return err
	}
	defer func() {
		if cfg.Keep {
			logf("kept %s (binary, catalog.json, pb_data, server.log)", tmp)
			return
		}
		os.RemoveAll(tmp)
	}()
	bin, data := filepath.Join(tmp, "enrichment"), filepath.Join(tmp, "pb_data")
	rep := &report{Machine: machine(), Config: cfg}

	pkg, profDir := ".", ""
	if cfg.CPUProfile != "" {
		if profDir, err = filepath.Abs(cfg.CPUProfile); err != nil {
			return err
		}
		if err := os.MkdirAll(profDir, 0o755); err != nil {
			return err
		}
		pkg = "./bench/profserver"
	}
	logf("building the binary (%s)", pkg)
	if err := buildBinary(ctx, root, pkg, bin); err != nil {
		return err
	}

	opt := gen.Bench()
	opt.Products = cfg.Products
	catalogPath := filepath.Join(tmp, "catalog.json")
	logf("generating %d products (%d templates, %d brands, seed %d)", opt.Products, opt.Templates, opt.Brands, opt.Seed)
	if err := writeCatalog(catalogPath, opt); err != nil {
		return err
	}

	var org struct {
		ID int64 `json:"id"`
	}
	if err := cliJSON(ctx, bin, data, &org, "org", "create", "--name", "Bench Outfitters", "--json"); err != nil {
		return err
	}
	orgID := fmt.Sprint(org.ID)

	waitIdle(ctx, cfg.WaitIdle, 0, "import")
	logf("importing")
	rep.Import, err = importCatalog(ctx, bin, data, orgID, catalogPath)
	if err != nil {
		return err
	}
	logf("import: %d products in %.2f s (%.0f products/s), peak RSS %.0f MB, CPU: import %.2f, others %.2f",
		rep.Import.Products, rep.Import.Seconds, rep.Import.ProductsPerSec, rep.Import.PeakRSSMB, rep.Import.CPU, rep.Import.OtherCPU)
	// the nightly feed that did not change: nothing may be written
	waitIdle(ctx, cfg.WaitIdle, 0, "re-import")
	logf("re-importing the same file")
	again, err := importCatalog(ctx, bin, data, orgID, catalogPath)
	if err != nil {
		return err
	}
	if again.Unchanged != again.Products {
		return fmt.Errorf("the re-import of the same file wrote %d of %d products", again.Products-again.Unchanged, again.Products)
	}
	rep.Reimport = &again
	logf("re-import: %d products in %.2f s (%.0f products/s), peak RSS %.0f MB, CPU: import %.2f, others %.2f",
		again.Products, again.Seconds, again.ProductsPerSec, again.PeakRSSMB, again.CPU, again.OtherCPU)

	var key struct {
		Key string `json:"key"`
	}
	if err := cliJSON(ctx, bin, data, &key, "apikey", "create", "--org", orgID, "--name", "bench",
		"--scopes", "catalog:read,catalog:submit", "--rate-limit", "0", "--json"); err != nil {
		return err
	}
	// the auth probe's key: an organization with nothing in it
	var empty struct {
		ID int64 `json:"id"`
	}
	if err := cliJSON(ctx, bin, data, &empty, "org", "create", "--name", "Bench Empty", "--json"); err != nil {
		return err
	}
	var probeKey struct {
		Key string `json:"key"`
	}
	if err := cliJSON(ctx, bin, data, &probeKey, "apikey", "create", "--org", fmt.Sprint(empty.ID), "--name", "bench probe",
		"--scopes", "catalog:read", "--rate-limit", "0", "--json"); err != nil {
		return err
	}
	// the attackers' keys: one with the default rate limit, four unlimited
	var attacker struct {
		Key string `json:"key"`
	}
	if err := cliJSON(ctx, bin, data, &attacker, "apikey", "create", "--org", orgID, "--name", "attacker",
		"--scopes", "catalog:submit", "--json"); err != nil {
		return err
	}
	var unlimited []string
	for i := range 4 {
		var k struct {
			Key string `json:"key"`
		}
		if err := cliJSON(ctx, bin, data, &k, "apikey", "create", "--org", orgID, "--name", fmt.Sprintf("attacker %d", i+2),
			"--scopes", "catalog:submit", "--rate-limit", "0", "--json"); err != nil {
			return err
		}
		unlimited = append(unlimited, k.Key)
	}
	const suEmail, suPassword = "bench@example.com", "bench-superuser-password"
	if !cfg.SkipPeer || cfg.Replica {
		if _, err := runCLI(ctx, bin, data, cliTimeout, "superuser", "upsert", suEmail, suPassword); err != nil {
			return err
		}
	}
	products, err := readCatalog(filepath.Join(data, "data.db"), orgID)
	if err != nil {
		return err
	}
	tg := &target{Key: key.Key, ProbeKey: probeKey.Key, Org: orgID, Products: products, RunID: fmt.Sprint(time.Now().Unix()),
		SubmitKeys: map[string]string{}, AttackKey: attacker.Key, AttackKeys: unlimited}
	for _, name := range append(slices.Clone(submitKinds), webhookKey) {
		var k struct {
			Key string `json:"key"`
		}
		if err := cliJSON(ctx, bin, data, &k, "apikey", "create", "--org", orgID, "--name", "bench "+name,
			"--scopes", "catalog:read,catalog:submit", "--rate-limit", "0", "--json"); err != nil {
			return err
		}
		tg.SubmitKeys[name] = k.Key
	}

	if cfg.Revisions > 0 && (cfg.runs("metrics-history") || cfg.runs("metrics-history-window") || cfg.runs("metrics-history-model")) {
		var k struct {
			ID  int64  `json:"id"`
			Key string `json:"key"`
		}
		if err := cliJSON(ctx, bin, data, &k, "apikey", "create", "--org", orgID, "--name", "bench history",
			"--scopes", "catalog:read,catalog:submit", "--rate-limit", "0", "--json"); err != nil {
			return err
		}
		logf("seeding %d revisions of one client over %d days, then metrics recount", cfg.Revisions, historyDays)
		seconds, err := seedHistory(ctx, bin, data, orgID, fmt.Sprint(k.ID), cfg.Revisions)
		if err != nil {
			return fmt.Errorf("seed the metrics history: %w", err)
		}
		rep.History = &historyResult{Revisions: cfg.Revisions, Days: historyDays, Seconds: round(seconds, 1)}
		tg.HistoryKey = k.Key
		logf("seeded in %.1f s", seconds)
	}

	var env []string
	if profDir != "" {
		env = append(env, "ENRICHMENT_PROFILE_DIR="+profDir)
	}
	replicaURL := "file://" + filepath.Join(tmp, "replica")
	if cfg.Replica {
		env = append(env, replica.URLEnv+"="+replicaURL)
	}
	logf("starting serve")
	srv, err := startServer(ctx, bin, data, filepath.Join(tmp, "server.log"), env)
	if err != nil {
		return err
	}
	defer srv.stop()
	h := &harness{ctx: ctx, srv: srv, cfg: cfg, profDir: profDir}
	if !cfg.SkipPeer || cfg.Replica {
		token, err := superuserToken(srv.base, suEmail, suPassword)
		if err != nil {
			return err
		}
		if !cfg.SkipPeer {
			tg.SuToken = token
		}
		if cfg.Replica {
			h.replicaToken = token
		}
	}

	for _, sc := range scenarios(tg, cfg) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !cfg.runs(sc.Name) {
			continue
		}
		rep.Scenarios = append(rep.Scenarios, h.run(sc, false))
	}
	if cfg.runs("webhooks") && ctx.Err() == nil {
		if rep.Webhooks, err = h.measureWebhooks(tg); err != nil {
			return fmt.Errorf("webhooks: %w", err)
		}
	}
	if cfg.Soak > 0 && ctx.Err() == nil {
		logf("soak: the mixed load for %s", cfg.Soak)
		soak := mixed(tg, cfg, "soak")
		soak.Duration = cfg.Soak
		r := h.run(soak, true)
		rep.Soak = soakOf(r)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	rep.Server.PeakRSSMB = mb(srv.peakHWM())
	srv.stop()
	rep.Server.Logs = scanLogs(filepath.Join(data, "auxiliary.db"), srv.logPath)
	if cfg.Replica {
		logf("restoring the replica into an empty folder")
		if rep.Replication, err = restoreReplica(ctx, bin, replicaURL, data, tmp); err != nil {
			return err
		}
		r := rep.Replication
		logf("restore: %d products, %d revisions (%.0f MB) in %.2f s, peak RSS %.0f MB; the same as the server's: %v; replica %.0f MB, Litestream's local state %.0f MB",
			r.Products, r.Revisions, r.RestoredMB, r.RestoreSeconds, r.RestorePeakMB, r.SameAsServer, r.ReplicaMB, r.LocalStateMB)
	}
	if profDir != "" {
		os.Remove(filepath.Join(profDir, "next"))
		logf("server CPU profiles in %s (go tool pprof -top %s)", profDir, filepath.Join(profDir, "export500.prof"))
	}
	rep.finish()
	if err := rep.write(out); err != nil {
		return err
	}
	logf("wrote %s", strings.Join([]string{filepath.Join(out, "latest.json"), "latest.md", "latest.svg"}, ", "))
	fmt.Print(rep.markdown())
	return nil
}

// rerender recomputes the targets of a results file from its measurements
// and rewrites it with its Markdown and chart.
func rerender(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	rep.Targets = nil
	rep.finish() // the targets as this version of the harness words them
	return rep.write(filepath.Dir(path))
}

// writeCatalog generates the catalog into a file.
func writeCatalog(path string, opt gen.Options) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := gen.Write(f, opt); err != nil {
		f.Close()
		return fmt.Errorf("generate catalog: %w", err)
	}
	return f.Close()
}

// cliJSON runs a subcommand that prints one JSON value and decodes it.
func cliJSON(ctx context.Context, bin, dir string, v any, args ...string) error {
	res, err := runCLI(ctx, bin, dir, cliTimeout, args...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(res.Stdout, v); err != nil {
		return fmt.Errorf("enrichment %s printed %q: %w", strings.Join(args, " "), tail(string(res.Stdout)), err)
	}
	return nil
}

// importResult is the import command's cost.
type importResult struct {
	Products       int     `json:"products"`
	FileMB         float64 `json:"fileMB"`
	Seconds        float64 `json:"seconds"` // wall time of the whole command
	ProductsPerSec float64 `json:"productsPerSec"`
	PeakRSSMB      float64 `json:"peakRSSMB"` // the kernel's max RSS of the process
	CPU            float64 `json:"cpuCores"`  // the import's own CPU over its wall time
	OtherCPU       float64 `json:"otherProcessesCPUCores"`
	Unchanged      int     `json:"unchanged"` // products found as stored, not written
	// the data folder's database (with its WAL) once the import is done
	DatabaseMB      float64 `json:"databaseMB"`
	BytesPerProduct float64 `json:"databaseBytesPerProduct"`
}

func importCatalog(ctx context.Context, bin, dir, org, path string) (importResult, error) {
	all0, self0 := machineBusy(), selfCPU()
	res, err := runCLI(ctx, bin, dir, importTimeout, "import", "--org", org, path, "--json")
	others := (machineBusy() - all0) - (selfCPU() - self0) - res.CPU.Seconds()
	if err != nil {
		return importResult{}, err
	}
	var counts struct {
		Created   int `json:"created"`
		Updated   int `json:"updated"`
		Unchanged int `json:"unchanged"`
	}
	if err := json.Unmarshal(res.Stdout, &counts); err != nil {
		return importResult{}, fmt.Errorf("import printed %q: %w", tail(string(res.Stdout)), err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return importResult{}, err
	}
	n := counts.Created + counts.Updated + counts.Unchanged
	var dbBytes int64
	for _, f := range []string{"data.db", "data.db-wal"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil {
			dbBytes += fi.Size()
		}
	}
	return importResult{
		Products: n, Unchanged: counts.Unchanged, FileMB: mb(info.Size()), Seconds: round(res.Wall.Seconds(), 3),
		ProductsPerSec:  round(float64(n)/res.Wall.Seconds(), 0),
		PeakRSSMB:       mb(max(res.MaxRSS, res.HWMSeen)),
		CPU:             round(res.CPU.Seconds()/res.Wall.Seconds(), 2),
		OtherCPU:        round(max(0, others)/res.Wall.Seconds(), 2),
		DatabaseMB:      mb(dbBytes),
		BytesPerProduct: round(float64(dbBytes)/float64(max(n, 1)), 0),
	}, nil
}

// superuserToken signs in the peer's superuser.
func superuserToken(base, email, password string) (string, error) {
	body, _ := json.Marshal(map[string]string{"identity": email, "password": password})
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Post(base+"/api/collections/_superusers/auth-with-password", "application/json", strings.NewReader(string(body)))
	if err != nil {
		return "", fmt.Errorf("superuser sign-in: %w", err)
	}
	defer resp.Body.Close()
	var auth struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&auth); err != nil || resp.StatusCode != http.StatusOK || auth.Token == "" {
		return "", fmt.Errorf("superuser sign-in: status %d (%v)", resp.StatusCode, err)
	}
	return auth.Token, nil
}

func mb(b int64) float64 { return round(float64(b)/(1<<20), 1) }

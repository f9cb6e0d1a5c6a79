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
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
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
	Live        bool          `json:"live,omitempty"`
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
	flag.IntVar(&cfg.Revisions, "revisions", 1_000_000, "revisions of one API client's year of proposals, for the metrics-history and scrape scenarios (0 skips the metrics-history ones)")
	flag.StringVar(&cfg.Only, "only", "", "run only these scenarios, comma-separated (e.g. health,auth-probe); the default runs all")
	flag.BoolVar(&cfg.Replica, "replica", false, "serve replicates data.db to a folder beside it (Litestream): each scenario records the replication lag, and the end times a restore")
	flag.BoolVar(&cfg.Live, "live", false, "a superuser subscribes to every revision through PocketBase's realtime API for the whole run, as the reviewers' page does")
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

// run is one whole bench run: build, generate and import the catalog,
// create the keys, serve, measure every scenario, and write the report.
func run(ctx context.Context, cfg config) error {
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

	profDir, err := build(ctx, cfg, root, bin)
	if err != nil {
		return err
	}
	orgID, err := importBenchCatalog(ctx, cfg, bin, data, tmp, rep)
	if err != nil {
		return err
	}
	tg, err := createTarget(ctx, cfg, bin, data, orgID)
	if err != nil {
		return err
	}
	if err := seedHistoryIfRun(ctx, cfg, bin, data, orgID, rep, tg); err != nil {
		return err
	}
	if err := seedOrganizationsIfRun(ctx, cfg, bin, data); err != nil {
		return err
	}

	replicaURL := "file://" + filepath.Join(tmp, "replica")
	logf("starting serve")
	srv, err := startServer(ctx, bin, data, filepath.Join(tmp, "server.log"), serveEnv(cfg, profDir, replicaURL))
	if err != nil {
		return err
	}
	defer srv.stop()
	if err := measure(ctx, cfg, srv, tg, profDir, rep); err != nil {
		return err
	}
	rep.Server.PeakRSSMB = mb(srv.peakHWM())
	srv.stop()
	rep.Server.Logs = scanLogs(filepath.Join(data, "auxiliary.db"), srv.logPath)
	if cfg.Replica {
		if err := restore(ctx, bin, replicaURL, data, tmp, rep); err != nil {
			return err
		}
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
	return writeCatalogWith(path, opt, gen.Write)
}

// writeCatalogWith writes the catalog of opt to path with write (gen.Write,
// gen.WriteShopifyCSV).
func writeCatalogWith(path string, opt gen.Options, write func(io.Writer, gen.Options) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := write(w, opt); err != nil {
		f.Close()
		return fmt.Errorf("generate catalog: %w", err)
	}
	if err := w.Flush(); err != nil {
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

func importCatalog(ctx context.Context, bin, dir, org, path string, flags ...string) (importResult, error) {
	all0, self0 := machineBusy(), selfCPU()
	res, err := runCLI(ctx, bin, dir, importTimeout, append(append([]string{"import", "--org", org}, flags...), path, "--json")...)
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

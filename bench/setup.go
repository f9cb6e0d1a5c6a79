package main

import (
	"context"
	"fmt"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/replica"
)

// The peer's superuser, created when the peer runs or the replica is
// measured (its restore check reads the records API).
const suEmail, suPassword = "bench@example.com", "bench-superuser-password"

// build builds the service into bin: the plain binary, or with -cpuprofile
// the profiling build, whose profile folder it returns (else "").
func build(ctx context.Context, cfg config, root, bin string) (profDir string, err error) {
	pkg := "."
	if cfg.CPUProfile != "" {
		if profDir, err = filepath.Abs(cfg.CPUProfile); err != nil {
			return "", err
		}
		if err := os.MkdirAll(profDir, 0o755); err != nil {
			return "", err
		}
		pkg = "./bench/profserver"
	}
	logf("building the binary (%s)", pkg)
	return profDir, buildBinary(ctx, root, pkg, bin)
}

// importBenchCatalog generates the catalog, creates its organization and
// imports it twice, the second time checking that the unchanged file
// writes nothing; it returns the organization's id.
func importBenchCatalog(ctx context.Context, cfg config, bin, data, tmp string, rep *report) (string, error) {
	opt := gen.Bench()
	opt.Products = cfg.Products
	catalogPath := filepath.Join(tmp, "catalog.json")
	logf("generating %d products (%d templates, %d brands, seed %d)", opt.Products, opt.Templates, opt.Brands, opt.Seed)
	if err := writeCatalog(catalogPath, opt); err != nil {
		return "", err
	}
	var org struct {
		ID int64 `json:"id"`
	}
	if err := cliJSON(ctx, bin, data, &org, "org", "create", "--name", "Bench Outfitters", "--json"); err != nil {
		return "", err
	}
	orgID := fmt.Sprint(org.ID)

	waitIdle(ctx, cfg.WaitIdle, 0, "import")
	logf("importing")
	first, err := importCatalog(ctx, bin, data, orgID, catalogPath)
	if err != nil {
		return "", err
	}
	rep.Import = first
	logf("import: %d products in %.2f s (%.0f products/s), peak RSS %.0f MB, CPU: import %.2f, others %.2f",
		first.Products, first.Seconds, first.ProductsPerSec, first.PeakRSSMB, first.CPU, first.OtherCPU)
	// the nightly feed that did not change: nothing may be written
	waitIdle(ctx, cfg.WaitIdle, 0, "re-import")
	logf("re-importing the same file")
	again, err := importCatalog(ctx, bin, data, orgID, catalogPath)
	if err != nil {
		return "", err
	}
	if again.Unchanged != again.Products {
		return "", fmt.Errorf("the re-import of the same file wrote %d of %d products", again.Products-again.Unchanged, again.Products)
	}
	rep.Reimport = &again
	logf("re-import: %d products in %.2f s (%.0f products/s), peak RSS %.0f MB, CPU: import %.2f, others %.2f",
		again.Products, again.Seconds, again.ProductsPerSec, again.PeakRSSMB, again.CPU, again.OtherCPU)
	shop, err := importShopifyCatalog(ctx, cfg, bin, tmp, opt)
	if err != nil {
		return "", err
	}
	rep.ImportShopify = &shop
	return orgID, nil
}

// importShopifyCatalog imports the same catalog as a Shopify product CSV
// (opt.Products variants) into a new organization of a data folder of its
// own, deleted after, so that the scenarios' database is the JSON one's.
func importShopifyCatalog(ctx context.Context, cfg config, bin, tmp string, opt gen.Options) (importResult, error) {
	csvPath, data := filepath.Join(tmp, "shop.csv"), filepath.Join(tmp, "shop-data")
	defer os.Remove(csvPath)
	defer os.RemoveAll(data)
	logf("generating the same catalog as a Shopify CSV")
	if err := writeCatalogWith(csvPath, opt, gen.WriteShopifyCSV); err != nil {
		return importResult{}, err
	}
	var org struct {
		ID int64 `json:"id"`
	}
	if err := cliJSON(ctx, bin, data, &org, "org", "create", "--name", "Bench Shop", "--json"); err != nil {
		return importResult{}, err
	}
	waitIdle(ctx, cfg.WaitIdle, 0, "Shopify CSV import")
	logf("importing the Shopify CSV")
	res, err := importCatalog(ctx, bin, data, fmt.Sprint(org.ID), csvPath, "--format", "shopify-csv")
	if err != nil {
		return importResult{}, err
	}
	logf("Shopify CSV import: %d products in %.2f s (%.0f products/s), peak RSS %.0f MB, CPU: import %.2f, others %.2f",
		res.Products, res.Seconds, res.ProductsPerSec, res.PeakRSSMB, res.CPU, res.OtherCPU)
	return res, nil
}

// createKey creates an API key of org with the command line and returns
// its id and raw key; extra holds further flags (--rate-limit).
func createKey(ctx context.Context, bin, data, org, name, scopes string, extra ...string) (id int64, key string, err error) {
	var k struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	args := append([]string{"apikey", "create", "--org", org, "--name", name, "--scopes", scopes}, extra...)
	err = cliJSON(ctx, bin, data, &k, append(args, "--json")...)
	return k.ID, k.Key, err
}

// unlimited is the flag of a key without a rate limit.
var unlimited = []string{"--rate-limit", "0"}

// createTarget creates what the scenarios use: the keys (the main one,
// the auth probe's in an empty organization, the attackers', one per kind
// of submission and the webhook's), the peer's superuser, and the list of
// the catalog's products.
func createTarget(ctx context.Context, cfg config, bin, data, orgID string) (*target, error) {
	_, key, err := createKey(ctx, bin, data, orgID, "bench", "catalog:read,catalog:submit", unlimited...)
	if err != nil {
		return nil, err
	}
	// the auth probe's key: an organization with nothing in it
	var empty struct {
		ID int64 `json:"id"`
	}
	if err := cliJSON(ctx, bin, data, &empty, "org", "create", "--name", "Bench Empty", "--json"); err != nil {
		return nil, err
	}
	_, probeKey, err := createKey(ctx, bin, data, fmt.Sprint(empty.ID), "bench probe", "catalog:read", unlimited...)
	if err != nil {
		return nil, err
	}
	// the attackers' keys: one with the default rate limit, four unlimited
	_, attacker, err := createKey(ctx, bin, data, orgID, "attacker", "catalog:submit")
	if err != nil {
		return nil, err
	}
	var attackers []string
	for i := range 4 {
		_, k, err := createKey(ctx, bin, data, orgID, fmt.Sprintf("attacker %d", i+2), "catalog:submit", unlimited...)
		if err != nil {
			return nil, err
		}
		attackers = append(attackers, k)
	}
	if !cfg.SkipPeer || cfg.Replica || cfg.Live {
		if _, err := runCLI(ctx, bin, data, cliTimeout, "superuser", "upsert", suEmail, suPassword); err != nil {
			return nil, err
		}
	}
	products, gapsTotal, err := readCatalog(filepath.Join(data, "data.db"), orgID)
	if err != nil {
		return nil, err
	}
	tg := &target{Key: key, ProbeKey: probeKey, Org: orgID, Products: products, GapsTotal: gapsTotal, RunID: fmt.Sprint(time.Now().Unix()),
		SubmitKeys: map[string]string{}, AttackKey: attacker, AttackKeys: attackers}
	for _, name := range slices.Concat(submitKinds, mcpKinds, []string{webhookKey}) {
		if _, tg.SubmitKeys[name], err = createKey(ctx, bin, data, orgID, "bench "+name, "catalog:read,catalog:submit", unlimited...); err != nil {
			return nil, err
		}
	}
	return tg, nil
}

// seedHistoryIfRun seeds a year of one client's revisions for the
// metrics-history scenarios and the dashboard's revisions list, when they
// run.
func seedHistoryIfRun(ctx context.Context, cfg config, bin, data, orgID string, rep *report, tg *target) error {
	if cfg.Revisions == 0 || !slices.ContainsFunc([]string{"metrics-history", "metrics-history-window", "metrics-history-model",
		"scrape", "dashboard-revisions", "dashboard-revisions-count"}, cfg.runs) {
		return nil
	}
	id, key, err := createKey(ctx, bin, data, orgID, "bench history", "catalog:read,catalog:submit", unlimited...)
	if err != nil {
		return err
	}
	logf("seeding %d revisions of one client over %d days, then metrics recount", cfg.Revisions, historyDays)
	seconds, err := seedHistory(ctx, bin, data, orgID, fmt.Sprint(id), cfg.Revisions)
	if err != nil {
		return fmt.Errorf("seed the metrics history: %w", err)
	}
	rep.History = &historyResult{Revisions: cfg.Revisions, Days: historyDays, Seconds: round(seconds, 1)}
	tg.HistoryKey = key
	logf("seeded in %.1f s", seconds)
	return nil
}

// serveEnv is the environment of serve: the profile folder, the replica,
// the metrics token of the scrape.
func serveEnv(cfg config, profDir, replicaURL string) []string {
	env := []string{opsmetrics.TokenEnv + "=" + scrapeToken}
	if profDir != "" {
		env = append(env, "ENRICHMENT_PROFILE_DIR="+profDir)
	}
	if cfg.Replica {
		env = append(env, replica.URLEnv+"="+replicaURL)
	}
	return env
}

// measure runs the scenarios -only selects against srv, then the webhooks
// and the soak when asked, into rep.
func measure(ctx context.Context, cfg config, srv *server, tg *target, profDir string, rep *report) error {
	h := &harness{ctx: ctx, srv: srv, cfg: cfg, profDir: profDir}
	if !cfg.SkipPeer || cfg.Replica || cfg.Live {
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
		if cfg.Live {
			live, err := subscribeLive(ctx, srv.base, token)
			if err != nil {
				return err
			}
			defer func() { logf("live: the realtime subscriber read %d revision messages", live.Load()) }()
		}
	}
	tg.Base = srv.base
	for _, sc := range scenarios(tg, cfg) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if cfg.runs(sc.Name) {
			rep.Scenarios = append(rep.Scenarios, h.run(sc, false))
		}
	}
	if cfg.runs("webhooks") && ctx.Err() == nil {
		var err error
		if rep.Webhooks, err = h.measureWebhooks(tg); err != nil {
			return fmt.Errorf("webhooks: %w", err)
		}
	}
	if cfg.Soak > 0 && ctx.Err() == nil {
		logf("soak: the mixed load for %s", cfg.Soak)
		soak := mixed(tg, cfg, "soak")
		soak.Duration = cfg.Soak
		rep.Soak = soakOf(h.run(soak, true))
	}
	return ctx.Err()
}

// restore restores the replica into an empty folder and times it.
func restore(ctx context.Context, bin, replicaURL, data, tmp string, rep *report) error {
	logf("restoring the replica into an empty folder")
	r, err := restoreReplica(ctx, bin, replicaURL, data, tmp)
	if err != nil {
		return err
	}
	rep.Replication = r
	logf("restore: %d products, %d revisions (%.0f MB) in %.2f s, peak RSS %.0f MB; the same as the server's: %v; replica %.0f MB, Litestream's local state %.0f MB",
		r.Products, r.Revisions, r.RestoredMB, r.RestoreSeconds, r.RestorePeakMB, r.SameAsServer, r.ReplicaMB, r.LocalStateMB)
	return nil
}

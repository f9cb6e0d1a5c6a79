package store_test

// Microbenchmarks of the export's and the submissions' hot paths on a
// generated catalog of 20k products (the load harness in bench/ measures
// the same over HTTP on 100k):
//
//	GOTOOLCHAIN=auto go test ./store -run '^$' -bench . -benchmem
//	GOTOOLCHAIN=auto go test ./store -run '^$' -bench Export -cpuprofile export.prof

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/catalogfixture"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

const benchProducts = 20_000

// benchEnv is an imported catalog with an API client to submit as.
type benchEnv struct {
	st     *store.Store
	org    enrichment.Org
	client int64
	skus   []string // active products' SKUs, in id order
	app    core.App
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	c := catalogfixture.New(b, "Bench", benchProducts)
	if os.Getenv("BENCH_STALE_STATS") == "" {
		freshReaders(b, c.App)
	}
	if len(c.SKUs) < 1000 {
		b.Fatalf("%d active SKUs", len(c.SKUs))
	}
	key := apikey.New("")
	client, err := c.Store.Accounts().CreateClient(c.Org, store.NewClient{Name: "bench", Scopes: enrichment.Scopes, KeyHash: key.Hash, KeyPrefix: key.Shown})
	if err != nil {
		b.Fatal(err)
	}
	return &benchEnv{st: c.Store, org: c.Org, client: client, skus: c.SKUs, app: c.App}
}

// freshReaders closes the read pool's idle connections. They were opened
// before the import and keep the planner statistics they loaded then (none):
// SQLite does not reload sqlite_stat1 into connections that are already
// open after ANALYZE on another one. A server started after the import, as
// in the load harness, has only fresh connections; BENCH_STALE_STATS=1
// measures the stale ones instead.
func freshReaders(b *testing.B, app core.App) {
	b.Helper()
	db, ok := app.ConcurrentDB().(*dbx.DB)
	if !ok {
		b.Fatalf("concurrent DB is a %T", app.ConcurrentDB())
	}
	db.DB().SetMaxIdleConns(0)
	db.DB().SetMaxIdleConns(core.DefaultDataMaxIdleConns)
}

// distinctSKUs picks n different active SKUs.
func (env *benchEnv) distinctSKUs(rng *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	for _, i := range rng.Perm(len(env.skus))[:n] {
		out = append(out, env.skus[i])
	}
	return out
}

// BenchmarkExportPage500 reads and assembles pages of 500 (what GET
// /products does before encoding): the first page, the last full one
// (OFFSET cost) and pages at random.
func BenchmarkExportPage500(b *testing.B) {
	env := newBenchEnv(b)
	const size = 500
	full := len(env.skus) / size
	for _, c := range []struct {
		name string
		page func(rng *rand.Rand) int
	}{
		{"first", func(*rand.Rand) int { return 0 }},
		{"last", func(*rand.Rand) int { return full - 1 }},
		{"random", func(rng *rand.Rand) int { return rng.IntN(full) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			items := 0
			for b.Loop() {
				page, err := env.st.Catalog().ExportPage(env.org, store.ExportQuery{Page: c.page(rng), PageSize: size})
				if err != nil || len(page.Items) != size {
					b.Fatalf("page: %d items, %v", len(page.Items), err)
				}
				items += len(page.Items)
			}
			b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "products/s")
		})
	}
}

// BenchmarkEncodePage500 encodes a page of 500 as e.JSON does.
func BenchmarkEncodePage500(b *testing.B) {
	env := newBenchEnv(b)
	page, err := env.st.Catalog().ExportPage(env.org, store.ExportQuery{Page: 7, PageSize: 500})
	if err != nil {
		b.Fatal(err)
	}
	encode := func(w io.Writer) error {
		return json.MarshalWrite(w, page, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	}
	var sized countingWriter
	if err := encode(&sized); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sized))
	for b.Loop() {
		if err := encode(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "products/s")
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// BenchmarkLookup50 looks up 50 random existing SKUs.
func BenchmarkLookup50(b *testing.B) {
	env := newBenchEnv(b)
	rng := rand.New(rand.NewPCG(3, 4))
	sets := make([][]string, 64)
	for i := range sets {
		sets[i] = env.distinctSKUs(rng, 50)
	}
	n := 0
	for b.Loop() {
		items, err := env.st.Catalog().ProductsBySKU(env.org, enrichment.Selection{}, sets[n%len(sets)])
		if err != nil || len(items) != 50 {
			b.Fatalf("lookup: %d items, %v", len(items), err)
		}
		n++
	}
}

// BenchmarkSubmit1000 stores batches of 1000 validated proposals (match by
// SKU, base snapshot, insert in one transaction), as POST /submissions
// does after validation: for products the client has nothing pending for,
// and with 30% and with all of the items superseding the client's pending
// proposals (of its previous batch). When the catalog runs out of fresh products, another
// client takes over, so the share holds.
func BenchmarkSubmit1000(b *testing.B) {
	for _, c := range []struct {
		name  string
		share float64
	}{{"fresh", 0}, {"supersede30", 0.3}, {"supersede100", 1}} {
		b.Run(c.name, func(b *testing.B) {
			env := newBenchEnv(b)
			rng := rand.New(rand.NewPCG(5, 6))
			order, taken, client := rng.Perm(len(env.skus)), 0, env.client
			var prev []string
			n := 0
			var cpu time.Duration // of the timed parts: steadier than wall time on a shared machine
			for b.Loop() {
				b.StopTimer()
				again := min(int(1000*c.share), len(prev))
				skus := make([]string, 0, 1000)
				for _, i := range rng.Perm(len(prev))[:again] {
					skus = append(skus, prev[i])
				}
				if taken+1000-again > len(order) {
					key := apikey.New("")
					var err error
					client, err = env.st.Accounts().CreateClient(env.org, store.NewClient{Name: fmt.Sprint("bench ", n), Scopes: enrichment.Scopes,
						KeyHash: key.Hash, KeyPrefix: key.Shown})
					if err != nil {
						b.Fatal(err)
					}
					taken, skus = 0, skus[:0]
				}
				for len(skus) < 1000 {
					skus = append(skus, env.skus[order[taken]])
					taken++
				}
				prev = skus
				batch := benchProposals(rng, skus)
				b.StartTimer()
				start := cpuTime()
				res, err := env.st.Proposals().Submit(env.org, client, batch, store.SubmitOptions{ExternalID: fmt.Sprint("bench-", n)})
				cpu += cpuTime() - start
				if err != nil || len(res) != 1000 || res[0].Status != enrichment.ResultCreated {
					b.Fatalf("submit: %d results, %v", len(res), err)
				}
				n++
			}
			b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "proposals/s")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// benchProposals are realistic validated proposals: most with a name and
// attributes, many with a description, some with files.
func benchProposals(rng *rand.Rand, skus []string) []enrichment.Proposal {
	sentence := "Built for everyday use, it keeps its shape after many washes and seasons. "
	out := make([]enrichment.Proposal, len(skus))
	for i, sku := range skus {
		confidence := 30 + rng.IntN(71)
		p := enrichment.Proposal{SKU: sku, Confidence: &confidence}
		name := "Vendor title for " + sku
		p.Fields.Name = &name
		if rng.IntN(10) < 6 {
			d := strings.Repeat(sentence, 3+rng.IntN(5))
			p.Fields.Description = &d
		}
		if rng.IntN(10) < 8 {
			attrs := []enrichment.StoredAttribute{{Attribute: "Color", Detail: "Deep Red"}, {Attribute: "Care", Detail: "Machine wash 30 °C"}}
			p.Fields.Attributes = &attrs
		}
		if rng.IntN(4) == 0 {
			files := []string{"https://docs.example/vendor/" + sku + "-datasheet.pdf"}
			p.Fields.Files = &files
		}
		out[i] = p
	}
	return out
}

// BenchmarkGeneration reads an organization's generation: what every cached
// answer (keys, templates, export page starts) costs per request.
func BenchmarkGeneration(b *testing.B) {
	app := fixture.Empty(b)
	st := store.New(app)
	id, err := st.Accounts().CreateOrg("Bench")
	if err != nil {
		b.Fatal(err)
	}
	org := enrichment.Org(store.FormatID(id))
	if err := st.BumpGeneration(org); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if g, err := st.Generation(org); err != nil || g != 1 {
			b.Fatalf("generation %d, %v", g, err)
		}
	}
}

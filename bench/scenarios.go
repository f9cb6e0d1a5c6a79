package main

import (
	"compress/gzip"
	"io"

	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	_ "modernc.org/sqlite" // driver "sqlite": the harness reads the imported SKUs
)

// product is what the load needs of an imported, active product.
type product struct {
	SKU    string
	Name   string
	Attr   string // its first attribute's name
	Option int64  // that attribute's template option, 0 for none
}

// readCatalog lists the organization's active products, in id order, and
// counts those with gaps, from the data folder while no server runs.
func readCatalog(dbPath, org string) (out []product, gapsTotal int, err error) {
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT sku, name, COALESCE(attributes ->> '$[0].attribute', ''),
		COALESCE(attributes ->> '$[0].optionId', 0)
		FROM products WHERE organization = ? AND active = 1 ORDER BY CAST(id AS INTEGER)`, org)
	if err != nil {
		return nil, 0, fmt.Errorf("read imported products: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p product
		if err := rows.Scan(&p.SKU, &p.Name, &p.Attr, &p.Option); err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM products WHERE organization = ? AND active = 1 AND gapRank != ''`, org).Scan(&gapsTotal); err != nil {
		return nil, 0, fmt.Errorf("count the products with gaps: %w", err)
	}
	if len(out) < 1000 {
		return nil, 0, fmt.Errorf("only %d active products imported; the submissions need 1000 (use -products 2000 or more)", len(out))
	}
	return out, gapsTotal, nil
}

// target is what the kinds of load are aimed at.
type target struct {
	Key      string // the API key (catalog:read and catalog:submit, unlimited)
	ProbeKey string // a catalog:read key of an organization without templates
	// SubmitKeys are the keys of the submission kinds by name, one API
	// client each, so that only a kind's own batches supersede each other
	SubmitKeys map[string]string
	SuToken    string // a superuser's token for the peer; "" skips it
	Org        string
	Products   []product
	GapsTotal  int    // products with a gap
	RunID      string // makes externalSubmissionIds unique across runs
	// AttackKey (the default rate limit) and AttackKeys (unlimited) are
	// catalog:submit keys of the same organization for the attacks
	AttackKey  string
	AttackKeys []string
	HistoryKey string // the API client with a year of seeded revisions; "" without -revisions
	Base       string // the server's URL, for the MCP kinds' sessions
}

func (t *target) keyHeader() http.Header {
	return header(t.Key)
}

func header(key string) http.Header {
	return http.Header{"X-Api-Client-Key": {key}, "Content-Type": {"application/json"}}
}

// submitKinds are the submission kinds with their own API client; the
// metrics are read as the client of metricsOf, the one that submits most.
var submitKinds = []string{"submit1000-c1", "submit1000-c1-supersede30", "submit1000-c4",
	"submit1000-c1-supersede100", "submit1000-c4-supersede100", "submit1000"}

const metricsOf = "submit1000-c4"

func pages(total, size int) int { return (total + size - 1) / size }

var productMarker = []byte(`"attributeTemplateId":`) // once per product, never in variants

func countProducts(b []byte) int { return bytes.Count(b, productMarker) }

func (t *target) health() *kind {
	return &kind{Name: "health", Header: http.Header{},
		Next: func(*rand.Rand, int) request { return request{Method: "GET", URL: "/api/health"} }}
}

func (t *target) templates() *kind {
	return &kind{Name: "templates", Header: t.keyHeader(),
		Next: func(*rand.Rand, int) request {
			return request{Method: "GET", URL: "/api/enrichment/attribute-templates"}
		}}
}

// authProbe passes the key and scope checks and gets 200 with next to
// nothing to do: the attribute templates of an organization that has none,
// [] from the cache. What the key middleware costs over GET /api/health.
// (A 400 before any query, the earlier probe, measured mostly what
// PocketBase's request log spends on an error.)
func (t *target) authProbe() *kind {
	return &kind{Name: "auth-probe", Header: http.Header{"X-Api-Client-Key": {t.ProbeKey}},
		Next: func(*rand.Rand, int) request {
			return request{Method: "GET", URL: "/api/enrichment/attribute-templates"}
		}}
}

// export pages through the catalog: at random ("random"), always the first
// page, or always the last full one (a short last page would be cheaper).
func (t *target) export(name string, size int, which string) *kind {
	return t.paged(name, "/api/enrichment/products", len(t.Products), size, which, countProducts)
}

// gaps pages through the gaps list as export pages through the catalog.
func (t *target) gaps(name string, size int, which string) *kind {
	return t.paged(name, "/api/enrichment/gaps", t.GapsTotal, size, which, countGapItems)
}

// paged asks for pages of size of a list of total items at path.
func (t *target) paged(name, path string, total, size int, which string, count func([]byte) int) *kind {
	n := total / size // full pages
	return &kind{Name: name, Unit: "products", Header: t.keyHeader(), Count: count,
		Next: func(rng *rand.Rand, _ int) request {
			page := 0
			switch which {
			case "random":
				page = rng.IntN(max(pages(total, size), 1))
			case "last":
				page = max(n-1, 0)
			}
			return request{Method: "GET", URL: path + "?page=" + strconv.Itoa(page) + "&pageSize=" + strconv.Itoa(size)}
		}}
}

var gapItemMarker = []byte(`"completeness":`)

func countGapItems(b []byte) int { return bytes.Count(b, gapItemMarker) }

func (t *target) lookup(name string, n int) *kind {
	return &kind{Name: name, Unit: "products", Header: t.keyHeader(), Count: countProducts,
		Next: func(rng *rand.Rand, _ int) request {
			skus := make([]string, 0, n)
			for _, i := range distinct(rng, len(t.Products), n) {
				skus = append(skus, t.Products[i].SKU)
			}
			body, _ := json.Marshal(map[string][]string{"skus": skus})
			return request{Method: "POST", URL: "/api/enrichment/products/skus", Body: body}
		}}
}

func (t *target) metrics() *kind {
	return &kind{Name: "metrics", Header: header(t.SubmitKeys[metricsOf]),
		Next: func(*rand.Rand, int) request {
			return request{Method: "GET", URL: "/api/enrichment/acceptance-rate"}
		}}
}

// metricsHistory reads the acceptance metrics of the client with a year of
// seeded revisions: over everything, or (window) between two random
// instants of that year, to the millisecond, so the edges rarely fall on a
// day's start.
// With model, each request also names one of the seeded models, and every
// other one a version of it (seedHistory).
func (t *target) metricsHistory(name string, window, model bool) *kind {
	return &kind{Name: name, Header: header(t.HistoryKey),
		Next: func(rng *rand.Rand, _ int) request {
			u := "/api/enrichment/acceptance-rate"
			query := url.Values{}
			if model {
				query.Set("model", fmt.Sprintf("writer-%d", rng.IntN(3)))
				if rng.IntN(2) == 0 {
					query.Set("modelVersion", fmt.Sprintf("v%d", rng.IntN(13)))
				}
			}
			if window {
				const year = historyDays * 24 * time.Hour
				a := historyEnd.Add(-time.Duration(rng.Int64N(int64(year)))).Truncate(time.Millisecond)
				b := historyEnd.Add(-time.Duration(rng.Int64N(int64(year)))).Truncate(time.Millisecond)
				if b.Before(a) {
					a, b = b, a
				}
				query.Set("since", a.Format(timeParam))
				query.Set("until", b.Format(timeParam))
			}
			if len(query) > 0 {
				u += "?" + query.Encode()
			}
			return request{Method: "GET", URL: u}
		}}
}

// timeParam is how the harness writes since and until.
const timeParam = "2006-01-02T15:04:05.000Z07:00"

// compressedExport is export500 with Accept-Encoding: encoding, so the
// server compresses each page; the answers are counted once decoded, and
// the report's MB/s are the bytes sent.
func (t *target) compressedExport(name, encoding string) *kind {
	k := t.export(name, 500, "random")
	k.Header = k.Header.Clone()
	k.Header.Set("Accept-Encoding", encoding)
	k.Count = func(b []byte) int {
		plain, err := decode(encoding, b)
		if err != nil {
			return 0 // note: counted as an answer without items, which the probe reports
		}
		return countProducts(plain)
	}
	return k
}

// decode undoes an answer's gzip or zstd.
func decode(encoding string, b []byte) ([]byte, error) {
	switch encoding {
	case "gzip":
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(r)
	case "zstd":
		r, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return io.ReadAll(r)
	}
	return b, nil
}

// peer is the same export through PocketBase's records API as a superuser:
// 500 a page with the relations expanded, one-based pages.
func (t *target) peer(name string) *kind {
	const size = 500
	filter := url.QueryEscape("(organization='" + t.Org + "' && active=true)")
	total := len(t.Products)
	return &kind{Name: name, Unit: "products",
		Header: http.Header{"Authorization": {t.SuToken}},
		Next: func(rng *rand.Rand, _ int) request {
			page := 1 + rng.IntN(pages(total, size))
			return request{Method: "GET", Items: min(size, total-(page-1)*size),
				URL: "/api/collections/products/records?perPage=500&page=" + strconv.Itoa(page) +
					"&expand=brand,attributeTemplate,variantMaster&filter=" + filter + "&sort=id"}
		}}
}

var createdMarker = []byte(`"status":"CREATED"`)

// submit sends batches of n proposals as a vendor would, each with its own
// externalSubmissionId, from the kind's own API client. share of each
// batch's items propose fields for the products of the kind's previous
// batch, whose proposals are still pending: those supersede them. The rest
// go to products the client has not proposed anything for yet, until the
// catalog runs out (100 batches of 1000 at 100k products); then the fresh
// ones start over and supersede too.
func (t *target) submit(name string, n int, seed uint64, share float64) *kind {
	g := newBatches(t, n, share, seed)
	return &kind{Name: name, Unit: "proposals", Header: header(t.SubmitKeys[name]),
		Count: func(b []byte) int { return bytes.Count(b, createdMarker) },
		Next: func(rng *rand.Rand, seq int) request {
			return request{Method: "POST", URL: "/api/enrichment/products/submissions", Body: g.body(name, rng, seq)}
		}}
}

// newBatches makes the batches of n items of a submission kind, share of
// them superseding the previous batch's; seed picks the products.
func newBatches(t *target, n int, share float64, seed uint64) *batches {
	g := &batches{t: t, n: n, share: share, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
	g.order = g.rng.Perm(len(t.Products))
	return g
}

// body is the submissions route's body of the next batch, with an
// externalSubmissionId of its own (the kind's name, the run and seq).
func (g *batches) body(name string, rng *rand.Rand, seq int) []byte {
	var body bytes.Buffer
	fmt.Fprintf(&body, `{"externalSubmissionId":"bench-%s-%s-%d-%d","items":`, g.t.RunID, name, rng.Uint32(), seq)
	body.Write(g.next())
	body.WriteByte('}')
	return body.Bytes()
}

// batches makes the successive batches of one submission kind.
type batches struct {
	t     *target
	n     int
	share float64

	mu    sync.Mutex
	rng   *rand.Rand
	order []int // the catalog in the order fresh products are taken
	taken int   // how many of order were taken
	prev  []int // the products of the previous batch
}

// next is the JSON array of the next batch's items.
func (g *batches) next() []byte {
	g.mu.Lock()
	again := int(float64(g.n) * g.share)
	if again > len(g.prev) {
		again = len(g.prev)
	}
	picked := make([]int, 0, g.n)
	for _, i := range g.rng.Perm(len(g.prev))[:again] {
		picked = append(picked, g.prev[i])
	}
	for len(picked) < g.n && len(picked) < len(g.order) {
		picked = append(picked, g.order[g.taken%len(g.order)])
		g.taken++
	}
	g.prev = picked
	rng := rand.New(rand.NewPCG(g.rng.Uint64(), 0x17e35))
	g.mu.Unlock()
	return g.t.proposals(rng, picked)
}

type proposalItem struct {
	SKU         string         `json:"sku"`
	Confidence  int            `json:"confidence"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Attributes  []proposalAttr `json:"attributes,omitempty"`
	Files       []string       `json:"files,omitempty"`
	GTIN        string         `json:"gtin,omitempty"` // not enrichable: reported as ignored
}

type proposalAttr struct {
	Attribute string          `json:"attribute"`
	Detail    string          `json:"detail"`
	Option    *proposalOption `json:"option"`
}

type proposalOption struct {
	OptionID int64 `json:"optionId"`
}

var (
	sentences = []string{
		"Built for everyday use, it keeps its shape after many washes and seasons.",
		"The outer layer resists light rain and dries quickly after a shower.",
		"Reinforced seams at the stress points add years to its service life.",
		"A recycled lining keeps the weight down without giving up comfort.",
		"Each piece is inspected by hand before it leaves the workshop.",
		"The tuned fit works for narrow and wide builds alike.",
		"Care is simple: a gentle cycle at thirty degrees and air drying.",
		"Spare parts stay available for at least five years after purchase.",
	}
	details = []string{"Deep Red", "Slate Grey", "Recycled polyester", "Machine wash 30 °C", "Regular fit", "42", "1.2 kg", "true"}
)

// proposals is a JSON array of realistic proposals for the products at the
// given indexes: most propose a name and attributes, many a description,
// some files, and a few send a field that is not enrichable. Each is about
// 0.5-1 KB.
func (t *target) proposals(rng *rand.Rand, indexes []int) []byte {
	items := make([]proposalItem, 0, len(indexes))
	for _, i := range indexes {
		p := t.Products[i]
		it := proposalItem{SKU: p.SKU, Confidence: 30 + rng.IntN(71)}
		if rng.IntN(10) < 7 {
			it.Name = p.Name + " – " + details[rng.IntN(len(details))]
		}
		if rng.IntN(10) < 6 {
			var d []string
			for range 3 + rng.IntN(5) {
				d = append(d, sentences[rng.IntN(len(sentences))])
			}
			it.Description = strings.Join(d, " ")
		}
		if rng.IntN(10) < 8 && p.Attr != "" {
			a := proposalAttr{Attribute: p.Attr, Detail: details[rng.IntN(len(details))]}
			if p.Option > 0 {
				a.Option = &proposalOption{OptionID: p.Option}
			}
			it.Attributes = []proposalAttr{a, {Attribute: "Care", Detail: "Machine wash 30 °C"}}
		}
		if rng.IntN(4) == 0 {
			it.Files = []string{"https://docs.example/vendor/" + p.SKU + "-datasheet.pdf"}
		}
		if rng.IntN(10) == 0 {
			it.GTIN = "04012345678901"
		}
		if it.Name == "" && it.Description == "" && it.Attributes == nil && it.Files == nil {
			it.Name = p.Name + " (vendor title)"
		}
		items = append(items, it)
	}
	b, err := json.Marshal(items)
	if err != nil {
		panic(err) // plain structs always encode
	}
	return b
}

// distinct picks n distinct indexes below total.
func distinct(rng *rand.Rand, total, n int) []int {
	seen := make(map[int]bool, n)
	out := make([]int, 0, n)
	for len(out) < n && len(out) < total {
		i := rng.IntN(total)
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}

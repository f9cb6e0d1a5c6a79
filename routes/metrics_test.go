package routes_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

const metricsURL = "/api/enrichment/acceptance-rate"

// seedMetrics stores the revisions that the metrics and the revisions list
// are checked against and returns the ids of A's "both" client's revisions
// (numbered 1..13 in the comments below, index 0..12).
func seedMetrics(t testing.TB, app core.App, f *fixture.Fixture) []int64 {
	t.Helper()
	a, b := f.A, f.B
	both := func(conf int, status string, created, reviewed string) rev {
		return rev{org: a.Org, client: a.Clients["both"], sku: "SKU-1", product: a.Products["SKU-1"],
			confidence: conf, status: status, created: created, reviewedAt: reviewed}
	}
	mine := []rev{
		both(30, "accepted", june(1, 10), june(2, 10)),  // 1
		both(40, "rejected", june(1, 10), june(3, 10)),  // 2
		both(10, "rejected", june(1, 10), june(4, 10)),  // 3
		both(50, "accepted", june(1, 10), june(5, 10)),  // 4
		both(79, "accepted", june(1, 10), june(6, 10)),  // 5
		both(60, "rejected", june(1, 10), june(7, 10)),  // 6
		both(100, "accepted", june(1, 10), june(8, 10)), // 7
		both(-1, "accepted", june(1, 10), june(9, 10)),  // 8
		both(-1, "rejected", june(1, 10), june(10, 10)), // 9
		both(90, "pending", june(3, 12), ""),            // 10
		both(-1, "pending", june(6, 12), ""),            // 11
		both(0, "pending", june(9, 12), ""),             // 12
		both(85, "rejected", june(6, 9), june(20, 10)),  // 13: submitted in, decided after most windows
	}
	// shapes for the revisions list
	mine[0].proposed, mine[0].approved = `{"name":"N","description":"D","files":["f.pdf"]}`, `["name","description","files"]`
	mine[1].proposed = `{"description":"D"}`
	mine[3].sku, mine[3].product = "SKU-M", a.Products["SKU-M"]
	mine[3].proposed, mine[3].approved = `{"attributes":[{"attribute":"Color","detail":"Red"}],"name":"N","slug":"s"}`, `["slug"]`
	mine[4].sku, mine[4].product = "SKU-M", a.Products["SKU-M"]
	mine[6].proposed = `{"slug":"s","files":["f.pdf"]}` // accepted with approvedFields empty: all applied
	mine[9].created = "2024-06-03 12:00:00.123Z"
	mine[9].proposed = `{"name":"N","attributes":[{"attribute":"Fit","detail":"Wide"}]}`
	mine[10].sku, mine[10].product = "SKU-GONE", 0
	ids := insertRevisions(t, app, mine...)

	others := func(org enrichment.Org, client int64, status, reviewed string) rev {
		return rev{org: org, client: client, sku: "SKU-1", confidence: 70, status: status, created: june(4, 8), reviewedAt: reviewed}
	}
	insertRevisions(t, app,
		others(a.Org, a.Clients["submit"], "accepted", june(5, 8)), // same organization, another client
		others(a.Org, a.Clients["submit"], "pending", ""),
		others(b.Org, b.Clients["both"], "accepted", june(5, 8)),
		others(b.Org, b.Clients["both"], "pending", ""),
		others(b.Org, a.Clients["both"], "accepted", june(5, 8)), // inconsistent: A's client, B's organization
	)
	return ids
}

// counts are the expected figures of a metrics body; bands are
// "reviewed/accepted/rate" in the API's order; reasons count by reason.
type counts struct {
	reviewed, accepted, rejected, pending, superseded, expired int
	rate                                                       string
	bands                                                      [3]string
	reasons                                                    map[string]int
}

// zeroCounts is the metrics of nothing.
var zeroCounts = counts{rate: "0", bands: [3]string{"0/0/0", "0/0/0", "0/0/0"}}

// metrics renders the expected body.
func metrics(c counts) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"totalSubmitted":%d,"reviewed":%d,"accepted":%d,"rejected":%d,"pending":%d,"acceptanceRate":%s,"byConfidenceBand":[`,
		c.reviewed+c.pending+c.superseded+c.expired, c.reviewed, c.accepted, c.rejected, c.pending, c.rate)
	for i, name := range enrichment.ConfidenceBands {
		parts := strings.Split(c.bands[i], "/")
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"band":%q,"reviewed":%s,"accepted":%s,"acceptanceRate":%s}`, name, parts[0], parts[1], parts[2])
	}
	fmt.Fprintf(&b, `],"superseded":%d,"expired":%d,"byReason":[`, c.superseded, c.expired)
	for i, reason := range enrichment.Reasons {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"reason":%q,"count":%d}`, reason, c.reasons[reason])
	}
	b.WriteString(`],"byModel":[]}`) // note: the seeded revisions name no model
	return b.String()
}

// seedClosed adds to seedMetrics' revisions of A's "both" client a
// superseded and an expired one, and reasons on three decided ones:
// 2 (rejected June 3) and 6 (rejected June 7) inaccurate, 4 (accepted in
// part June 5) incomplete, 13 (rejected June 20) off_brand.
func seedClosed(t testing.TB, app core.App, f *fixture.Fixture, ids []int64) {
	t.Helper()
	a := f.A
	insertRevisions(t, app,
		rev{org: a.Org, client: a.Clients["both"], sku: "SKU-1", product: a.Products["SKU-1"], confidence: 70,
			status: "superseded", created: june(2, 10), closedAt: june(5, 12), superseded: `["name"]`}, // 14
		rev{org: a.Org, client: a.Clients["both"], sku: "SKU-1", product: a.Products["SKU-1"], confidence: 20,
			status: "expired", created: june(1, 10), closedAt: june(9, 12)}, // 15
	)
	for i, reason := range map[int]string{1: "inaccurate", 5: "inaccurate", 3: "incomplete", 12: "off_brand"} {
		if _, err := app.DB().Update("revisions", dbx.Params{"reason": reason}, dbx.HashExp{"id": fmt.Sprint(ids[i])}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	recount(t, app, map[enrichment.Org]bool{a.Org: true})
}

// httpCase is one row of a table played against one seeded app.
type httpCase struct {
	name   string
	url    string
	key    string
	status int
	want   string   // the exact body, when set
	has    []string // substrings of the body
	check  func(t testing.TB, body []byte)
}

// play makes each request against h and checks status and body.
func play(t *testing.T, h http.Handler, cases []httpCase) {
	t.Helper()
	for _, c := range cases {
		res := request(h, "GET", c.url, c.key, "")
		body := strings.TrimSpace(res.Body.String())
		if res.Code != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, res.Code, c.status, body)
			continue
		}
		if c.want != "" && strings.Contains(c.url, metricsURL) {
			body = withoutFieldMetrics(body) // per field: TestFieldDecisionsSeenByTheVendor, store's TestMetricCountersMatchARecount
		}
		if c.want != "" && body != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, body, c.want)
		}
		for _, s := range c.has {
			if !strings.Contains(body, s) {
				t.Errorf("%s: body lacks %s: %s", c.name, s, body)
			}
		}
		if c.check != nil {
			c.check(&named{TB: t, name: c.name}, []byte(body))
		}
	}
}

// named prefixes a table row's failures with its name.
type named struct {
	testing.TB
	name string
}

func (n *named) Errorf(format string, args ...any) {
	n.TB.Helper()
	n.TB.Errorf(n.name+": "+format, args...)
}
func (n *named) Fatalf(format string, args ...any) {
	n.TB.Helper()
	n.TB.Fatalf(n.name+": "+format, args...)
}

func TestAcceptanceRate(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	seedClosed(t, app, f, seedMetrics(t, app, f))
	h := handler(t, app)
	key := f.A.Keys["both"]
	at := func(p string, v string) string { return p + "=" + url.QueryEscape(v) }
	ms := func(day, hour int) string {
		return strconv.FormatInt(time.Date(2024, 6, day, hour, 0, 0, 0, time.UTC).UnixMilli(), 10)
	}
	zero := metrics(zeroCounts)
	cases := []httpCase{
		{name: "no key", url: metricsURL, status: 401},
		{name: "submit-only key lacks catalog:read", url: metricsURL, key: f.A.Keys["submit"], status: 403,
			has: []string{`"message":"Missing required scope: catalog:read"`}},
		{name: "revoked key", url: metricsURL, key: f.A.Keys["revoked"], status: 401},
		{name: "everything, unbounded", url: metricsURL, key: key, status: 200,
			want: metrics(counts{10, 5, 5, 3, 1, 1, "0.5", [3]string{"3/1/0.3333", "3/2/0.6667", "2/1/0.5"},
				map[string]int{"inaccurate": 2, "incomplete": 1, "off_brand": 1}})},
		{name: "since only, epoch millis, strict", url: metricsURL + "?" + at("since", ms(5, 10)), key: key, status: 200,
			want: metrics(counts{6, 3, 3, 2, 1, 1, "0.5", [3]string{"0/0/0", "2/1/0.5", "2/1/0.5"},
				map[string]int{"inaccurate": 1, "off_brand": 1}})},
		{name: "since one millisecond earlier takes the revision decided at that moment",
			url: metricsURL + "?" + at("since", "2024-06-05T09:59:59.999Z"), key: key, status: 200,
			want: metrics(counts{7, 4, 3, 2, 1, 1, "0.5714", [3]string{"0/0/0", "3/2/0.6667", "2/1/0.5"},
				map[string]int{"inaccurate": 1, "incomplete": 1, "off_brand": 1}})},
		{name: "until only, ISO instant, strict", url: metricsURL + "?" + at("until", "2024-06-05T10:00:00Z"), key: key, status: 200,
			want: metrics(counts{3, 1, 2, 1, 0, 0, "0.3333", [3]string{"3/1/0.3333", "0/0/0", "0/0/0"},
				map[string]int{"inaccurate": 1}})},
		{name: "until just after the supersession counts it by closedAt", url: metricsURL + "?" + at("until", "2024-06-05T12:00:00.001Z"), key: key, status: 200,
			want: metrics(counts{4, 2, 2, 1, 1, 0, "0.5", [3]string{"3/1/0.3333", "1/1/1", "0/0/0"},
				map[string]int{"inaccurate": 1, "incomplete": 1}})},
		{name: "both bounds, local time and offset", key: key, status: 200,
			url: metricsURL + "?" + at("since", "2024-06-02T10:00:00") + "&" + at("until", "2024-06-08T12:00:00+02:00"),
			want: metrics(counts{5, 2, 3, 2, 1, 0, "0.4", [3]string{"2/0/0", "3/2/0.6667", "0/0/0"},
				map[string]int{"inaccurate": 2, "incomplete": 1}})},
		{name: "a window holding nothing", url: metricsURL + "?" + at("since", "2030-01-01T00:00:00Z"), key: key, status: 200, want: zero},
		{name: "since after until is an empty window", key: key, status: 200,
			url: metricsURL + "?" + at("since", ms(20, 0)) + "&" + at("until", ms(1, 0)), want: zero},
		{name: "another client of the same organization sees none of them", url: metricsURL, key: f.A.Keys["read"], status: 200, want: zero},
		{name: "the other organization sees only its own", url: metricsURL, key: f.B.Keys["both"], status: 200,
			want: metrics(counts{1, 1, 0, 1, 0, 0, "1", [3]string{"0/0/0", "1/1/1", "0/0/0"}, nil})},
		{name: "bad since", url: metricsURL + "?since=yesterday", key: key, status: 400,
			has: []string{`"message":"Invalid since: expected epoch milliseconds or an ISO-8601 date-time`, `"since":{"code":"validation_invalid_time"`}},
		{name: "bad until", url: metricsURL + "?until=2024-06-01", key: key, status: 400,
			has: []string{`"message":"Invalid until:`, `"until":{"code":"validation_invalid_time"`}},
		{name: "both bad: both named", url: metricsURL + "?since=x&until=y", key: key, status: 400,
			has: []string{`"since":{`, `"until":{`}},
	}
	play(t, h, cases)
}

// TestAcceptanceRateEmpty checks the zero case on a fresh organization: all
// zeros, rate 0 and the three bands.
func TestAcceptanceRateEmpty(t *testing.T) {
	f := fixture.Get(t)
	run(t, f, []call{
		{name: "nothing submitted", url: metricsURL, key: f.A.Keys["both"], status: 200,
			check: func(t testing.TB, _ *tests.TestApp, body []byte) {
				want := `{"totalSubmitted":0,"reviewed":0,"accepted":0,"rejected":0,"pending":0,"acceptanceRate":0,"byConfidenceBand":[` +
					`{"band":"0-49","reviewed":0,"accepted":0,"acceptanceRate":0},{"band":"50-79","reviewed":0,"accepted":0,"acceptanceRate":0},` +
					`{"band":"80-100","reviewed":0,"accepted":0,"acceptanceRate":0}],"superseded":0,"expired":0,"byReason":[` +
					`{"reason":"inaccurate","count":0},{"reason":"low_quality","count":0},{"reason":"off_brand","count":0},` +
					`{"reason":"incomplete","count":0},{"reason":"duplicate","count":0},{"reason":"other","count":0}],"corrected":0,"reverted":0,"byField":[` +
					`{"field":"name","proposed":0,"applied":0,"corrected":0},{"field":"slug","proposed":0,"applied":0,"corrected":0},` +
					`{"field":"description","proposed":0,"applied":0,"corrected":0},{"field":"attributes","proposed":0,"applied":0,"corrected":0},` +
					`{"field":"files","proposed":0,"applied":0,"corrected":0}],"autoAccepted":0,"slotsFilled":0,"byModel":[]}`
				if got := strings.TrimSpace(string(body)); got != want {
					t.Errorf("got %s\nwant %s", got, want)
				}
			}},
		{name: "wrong method", method: "POST", url: metricsURL, key: f.A.Keys["both"], status: 405,
			content: []string{`"status":405`, `"message":"Method not allowed; use GET."`}},
	})
}

// withoutFieldMetrics drops corrected and byField (the members before
// byModel) from an acceptance-rate body.
func withoutFieldMetrics(body string) string {
	i := strings.Index(body, `,"corrected":`)
	j := strings.Index(body, `,"byModel":`)
	if i < 0 || j < i {
		return body
	}
	return body[:i] + body[j:]
}

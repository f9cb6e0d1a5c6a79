package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// enrichable text fields the test proposes and reviewers approve
var textFields = []string{"name", "slug", "description"}

// pbJSON sends a records API request with a PocketBase auth token.
func pbJSON(method, url, token string, body any) answer {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	if token == "" {
		return send(method, url, "", raw)
	}
	return send(method, url, "", raw, "Authorization", token)
}

// signIn authenticates an auth collection's user and returns the token.
func signIn(t *testing.T, base, collection, email, password string) string {
	t.Helper()
	a := pbJSON(http.MethodPost, base+"/api/collections/"+collection+"/auth-with-password", "",
		map[string]string{"identity": email, "password": password})
	var res struct{ Token string }
	if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &res) != nil || res.Token == "" {
		t.Fatalf("sign in %s as %s: %d %v %s", collection, email, a.status, a.err, a.body)
	}
	return res.Token
}

// proposal is what one CREATED revision proposed.
type proposal struct {
	sku    string
	fields map[string]string
}

// decision is one reviewer's PATCH and its outcome.
type decision struct {
	rev      int64
	reviewer int
	status   string   // accepted or rejected
	approved []string // for a partial approval
	code     int
	body     string
}

// TestConcurrentReviewAndSubmit has vendors keep proposing changes to a few
// products while reviewers decide them, two of them racing on some
// revisions: no 5xx, no lock errors, one decision per revision, no lost
// update, and metrics that match the revisions table. The vendor's newer
// proposals supersede its older pending ones meanwhile, so a decision may
// also be refused because the revision, or an approved field, was
// superseded first.
func TestConcurrentReviewAndSubmit(t *testing.T) {
	dir := t.TempDir()
	orgID, key := newOrgWithKey(t, dir, "Race Co")
	// vendors: each batch is sent with one of these keys, so proposals of
	// different clients compete for the same products (only a client's own
	// newer proposals supersede its older ones)
	var vendors []vendorKey
	for range 4 {
		var v vendorKey
		cliJSON(t, dir, &v, "apikey", "create", "--org", orgID, "--scopes", "catalog:read,catalog:submit", "--rate-limit", "0", "--json")
		vendors = append(vendors, v)
	}

	const products = 20
	original := map[string]map[string]string{}
	var items []map[string]any
	for i := 1; i <= products; i++ {
		sku := fmt.Sprintf("RACE-%02d", i)
		original[sku] = map[string]string{"name": "Original " + sku, "slug": "original-" + strings.ToLower(sku),
			"description": "The original description of " + sku + "."}
		items = append(items, map[string]any{"sku": sku, "name": original[sku]["name"],
			"slug": original[sku]["slug"], "description": original[sku]["description"]})
	}
	raw, _ := json.Marshal(map[string]any{"products": items})
	file := filepath.Join(t.TempDir(), "race.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cli(t, dir, "import", "--org", orgID, file)
	const suEmail, suPassword = "root@example.com", "root-password-1234"
	cli(t, dir, "superuser", "upsert", suEmail, suPassword)

	srv := startServe(t, dir)
	records := srv.base + "/api/collections/"
	su := signIn(t, srv.base, "_superusers", suEmail, suPassword)
	const reviewers = 3
	tokens, emails, reviewerIDs := make([]string, reviewers), make([]string, reviewers), make([]string, reviewers)
	for i := range reviewers {
		emails[i] = fmt.Sprintf("reviewer%d@race.example", i)
		a := pbJSON(http.MethodPost, records+"reviewers/records", su, map[string]any{"email": emails[i],
			"password": "reviewer-password", "passwordConfirm": "reviewer-password", "organization": orgID})
		var created struct{ ID string }
		if a.status != http.StatusOK || json.Unmarshal(a.body, &created) != nil {
			t.Fatalf("create reviewer: %d %v %s", a.status, a.err, a.body)
		}
		reviewerIDs[i] = created.ID
		tokens[i] = signIn(t, srv.base, "reviewers", emails[i], "reviewer-password")
	}

	var (
		mu        sync.Mutex
		proposals = map[int64]proposal{}
		decisions []decision
		races     int
		requests  atomic.Int64
		stop      atomic.Bool
		wg        sync.WaitGroup
		queue     = make(chan int64, 100000)
		found     problems
	)
	report := found.add
	// observe checks every answer of the run
	observe := func(what string, a answer) {
		requests.Add(1)
		switch {
		case a.err != nil:
			report("%s: no answer: %v", what, a.err)
		case a.status >= 500:
			report("%s: status %d: %s", what, a.status, tail(string(a.body)))
		case strings.Contains(strings.ToLower(string(a.body)), "database is locked"):
			report("%s: %d mentions a locked database: %s", what, a.status, tail(string(a.body)))
		}
	}
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for b := 0; !stop.Load(); b++ {
				var items []map[string]any
				var props []proposal
				for n, i := range rng.Perm(products)[:1+rng.IntN(4)] {
					p := proposal{sku: fmt.Sprintf("RACE-%02d", i+1), fields: map[string]string{}}
					item := map[string]any{"sku": p.sku}
					for _, f := range pick(rng, textFields) {
						p.fields[f] = fmt.Sprintf("%s w%d b%d i%d", f, w, b, n)
						if f == "slug" { // note: a slug must pass the slug check
							p.fields[f] = fmt.Sprintf("slug-w%d-b%d-i%d", w, b, n)
						}
						item[f] = p.fields[f]
					}
					if rng.IntN(5) > 0 {
						item["confidence"] = rng.IntN(101)
					}
					items, props = append(items, item), append(props, p)
				}
				body, _ := json.Marshal(map[string]any{"items": items})
				a := send(http.MethodPost, srv.base+submissionsPath, vendors[rng.IntN(len(vendors))].Key, body)
				observe("submit", a)
				if a.status != http.StatusOK {
					report("submit: %d %s", a.status, tail(string(a.body)))
					continue
				}
				ids, err := parseIDs(a.body)
				if err != nil || len(ids) != len(props) {
					report("submit: %v, %d ids for %d items", err, len(ids), len(props))
					continue
				}
				mu.Lock()
				for i, id := range ids {
					proposals[id] = props[i]
				}
				mu.Unlock()
				for _, id := range ids {
					queue <- id
				}
			}
		}()
	}
	decide := func(rev int64, reviewer int, rng *rand.Rand) decision {
		mu.Lock()
		p := proposals[rev]
		mu.Unlock()
		d := decision{rev: rev, reviewer: reviewer, status: "accepted"}
		body := map[string]any{"status": "accepted"}
		switch rng.IntN(3) {
		case 1:
			d.approved = pick(rng, slices.Sorted(maps.Keys(p.fields)))
			body["approvedFields"] = d.approved
		case 2:
			d.status, body["status"] = "rejected", "rejected"
		}
		a := pbJSON(http.MethodPatch, fmt.Sprintf("%srevisions/records/%d", records, rev), tokens[reviewer], body)
		observe("decide", a)
		d.code, d.body = a.status, string(a.body)
		return d
	}
	for r := range reviewers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(10+r), uint64(time.Now().UnixNano())))
			for !stop.Load() {
				var rev int64
				select {
				case rev = <-queue:
				case <-time.After(50 * time.Millisecond):
					continue
				}
				if rng.IntN(4) > 0 {
					d := decide(rev, r, rng)
					if d.code != http.StatusOK && !(d.code == http.StatusBadRequest && strings.Contains(d.body, "superseded")) {
						report("decision on revision %d: status %d: %s", rev, d.code, tail(d.body))
					}
					mu.Lock()
					decisions = append(decisions, d)
					mu.Unlock()
					continue
				}
				// a race: two reviewers decide the same revision at once
				other := (r + 1 + rng.IntN(reviewers-1)) % reviewers
				start, pair := make(chan struct{}), make([]decision, 2)
				var both sync.WaitGroup
				for i, who := range []int{r, other} {
					both.Add(1)
					seed := rng.Uint64()
					go func() {
						defer both.Done()
						<-start
						pair[i] = decide(rev, who, rand.New(rand.NewPCG(seed, 1)))
					}()
				}
				close(start)
				both.Wait()
				codes := []int{pair[0].code, pair[1].code}
				slices.Sort(codes)
				loser := pair[0].body + pair[1].body
				final := slices.Equal(codes, []int{http.StatusOK, http.StatusBadRequest}) &&
					(strings.Contains(loser, "decision is final") || strings.Contains(loser, "superseded"))
				superseded := slices.Equal(codes, []int{http.StatusBadRequest, http.StatusBadRequest}) && strings.Contains(loser, "superseded")
				if !final && !superseded {
					report("race on revision %d: statuses %v, want one 200 and one 400 saying the decision is final "+
						"(or both refused as superseded): %s", rev, codes, tail(loser))
				}
				mu.Lock()
				decisions = append(decisions, pair...)
				races++
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() { // readers of what the reviewers change
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			observe("export", send(http.MethodGet, srv.base+"/api/enrichment/products?pageSize=20", key, nil))
			observe("metrics", send(http.MethodGet, srv.base+"/api/enrichment/acceptance-rate", key, nil))
			observe("list", pbJSON(http.MethodGet, records+"revisions/records?perPage=50&filter=status%3D%27pending%27", tokens[i%reviewers], nil))
		}
	}()
	time.Sleep(3 * time.Second)
	stop.Store(true)
	waitGroup(t, &wg, 40*time.Second)
	found.report(t)

	won := map[int64]decision{}
	for _, d := range decisions {
		if d.code != http.StatusOK {
			continue
		}
		if prev, twice := won[d.rev]; twice {
			t.Errorf("revision %d decided twice: %+v and %+v", d.rev, prev, d)
		}
		won[d.rev] = d
	}
	t.Logf("%d requests; %d revisions submitted, %d decided (%d decisions sent, %d races of two reviewers)",
		requests.Load(), len(proposals), len(won), len(decisions), races)
	checkReviewOutcome(t, openReadOnly(t, dir), srv.base, key, vendors, reviewerIDs, proposals, won, original)
	srv.stop()
	if out := srv.stdout.String() + srv.stderr.String(); strings.Contains(strings.ToLower(out), "database is locked") {
		t.Errorf("serve reported a locked database: %s", tail(out))
	}
}

// checkReviewOutcome compares the revisions and products stored with the
// decisions the reviewers saw succeed, and the metrics with the table.
func checkReviewOutcome(t *testing.T, db *sql.DB, base, key string, vendors []vendorKey, reviewerIDs []string,
	proposals map[int64]proposal, won map[int64]decision, original map[string]map[string]string) {
	rows, err := db.Query(`SELECT CAST(id AS INTEGER), apiClient, sku, status, approvedFields, supersededFields, reviewedAt, reviewer, confidenceBand FROM revisions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type applied struct {
		at    string
		id    int64
		value string
	}
	last := map[string][]applied{} // by sku and field: accepted values
	counts := map[string]int{}     // by client/status and client/status/band
	stored := 0
	for rows.Next() {
		var id int64
		var client, sku, status, approvedRaw, supersededRaw, reviewedAt, reviewer, band string
		if err := rows.Scan(&id, &client, &sku, &status, &approvedRaw, &supersededRaw, &reviewedAt, &reviewer, &band); err != nil {
			t.Fatal(err)
		}
		stored++
		counts[status]++
		counts[client+"/"+status]++
		counts[client+"/"+status+"/"+band]++
		p, ok := proposals[id]
		if !ok || p.sku != sku {
			t.Errorf("revision %d of %s: not a revision the submitters were answered (%+v)", id, sku, p)
			continue
		}
		var approved, superseded []string
		_ = json.Unmarshal([]byte(approvedRaw), &approved)
		_ = json.Unmarshal([]byte(supersededRaw), &superseded)
		d, decided := won[id]
		switch {
		case !decided:
			if (status != "pending" && status != "superseded") || reviewedAt != "" {
				t.Errorf("revision %d: no reviewer was told it was decided, yet it is %s at %q", id, status, reviewedAt)
			}
			continue
		case status != d.status || reviewer != reviewerIDs[d.reviewer] || reviewedAt == "":
			t.Errorf("revision %d: stored %s by %q at %q, the winning decision was %s by %s",
				id, status, reviewer, reviewedAt, d.status, reviewerIDs[d.reviewer])
		}
		want := d.approved
		switch {
		case d.status == "rejected":
			want = nil
		case want == nil: // every field still pending (a decided revision is never superseded later)
			for _, f := range slices.Sorted(maps.Keys(p.fields)) {
				if !slices.Contains(superseded, f) {
					want = append(want, f)
				}
			}
		}
		if !sameSet(approved, want) {
			t.Errorf("revision %d: approvedFields %v, want %v", id, approved, want)
		}
		if status == "accepted" {
			for _, f := range approved {
				last[sku+"/"+f] = append(last[sku+"/"+f], applied{reviewedAt, id, p.fields[f]})
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if stored != len(proposals) {
		t.Errorf("%d revisions stored, %d answered as CREATED", stored, len(proposals))
	}

	// no lost update: each field holds the last accepted value
	var skus []string
	for sku := range original {
		skus = append(skus, sku)
	}
	slices.Sort(skus)
	body, _ := json.Marshal(map[string]any{"skus": skus})
	a := send(http.MethodPost, base+"/api/enrichment/products/skus", key, body)
	var found struct{ Items []map[string]any }
	if a.status != http.StatusOK || json.Unmarshal(a.body, &found) != nil || len(found.Items) != len(skus) {
		t.Fatalf("look up the products: %d %s", a.status, tail(string(a.body)))
	}
	changed := 0
	for _, p := range found.Items {
		sku := p["sku"].(string)
		for _, f := range textFields {
			got, options := p[f].(string), []string{original[sku][f]}
			if vals := last[sku+"/"+f]; len(vals) > 0 {
				slices.SortFunc(vals, func(a, b applied) int { return strings.Compare(a.at, b.at) })
				options = nil
				for _, v := range vals { // note: equal reviewedAt times are equally "last"
					if v.at == vals[len(vals)-1].at {
						options = append(options, v.value)
					}
				}
				changed++
			}
			if !slices.Contains(options, got) {
				t.Errorf("%s %s is %q, want the last accepted value %q (lost update)", sku, f, got, options)
			}
		}
	}
	t.Logf("%d revisions: %d accepted, %d rejected, %d pending, %d superseded; %d product fields checked against their last accepted value",
		stored, counts["accepted"], counts["rejected"], counts["pending"], counts["superseded"], changed)

	// each vendor's metrics agree with the table
	total := 0
	for _, v := range vendors {
		var m struct {
			TotalSubmitted, Reviewed, Accepted, Rejected, Pending, Superseded int
			AcceptanceRate                                                    float64
			ByConfidenceBand                                                  []struct {
				Band               string
				Reviewed, Accepted int
			}
		}
		if err := json.Unmarshal(mustGet(t, base+"/api/enrichment/acceptance-rate", v.Key, http.StatusOK), &m); err != nil {
			t.Fatal(err)
		}
		c := func(status string) int { return counts[fmt.Sprint(v.ID)+"/"+status] }
		reviewed := c("accepted") + c("rejected")
		if m.Accepted != c("accepted") || m.Rejected != c("rejected") || m.Pending != c("pending") ||
			m.Superseded != c("superseded") || m.Reviewed != reviewed || m.TotalSubmitted != reviewed+c("pending")+c("superseded") ||
			math.Abs(m.AcceptanceRate-math.Round(float64(c("accepted"))/float64(max(reviewed, 1))*1e4)/1e4) > 1e-9 {
			t.Errorf("metrics of client %d %+v, table %v", v.ID, m, counts)
		}
		for _, b := range m.ByConfidenceBand {
			acc, rej := c("accepted/"+b.Band), c("rejected/"+b.Band)
			if b.Accepted != acc || b.Reviewed != acc+rej {
				t.Errorf("client %d, band %s: %d of %d accepted, table %d of %d", v.ID, b.Band, b.Accepted, b.Reviewed, acc, acc+rej)
			}
		}
		total += m.TotalSubmitted
	}
	if total != stored {
		t.Errorf("the vendors' metrics count %d revisions, the table holds %d", total, stored)
	}
}

// vendorKey is an API key made with apikey create --json.
type vendorKey struct {
	ID  int64
	Key string
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// pick returns a random non-empty subset of from, in from's order.
func pick(rng *rand.Rand, from []string) []string {
	var out []string
	for len(out) == 0 {
		out = out[:0]
		for _, s := range from {
			if rng.IntN(2) == 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

package routes_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/pocketbase/pocketbase/core"
)

// submitted sends a batch and returns the revision ids of its items.
func submitted(t testing.TB, h http.Handler, key, url string, items ...string) []int64 {
	t.Helper()
	res := request(h, http.MethodPost, url, key, `{"items":[`+strings.Join(items, ",")+`]}`)
	if res.Code != 200 {
		t.Fatalf("submit: %d %s", res.Code, res.Body)
	}
	var ids []int64
	for _, r := range decode[[]result](t, res.Body.Bytes()) {
		if r.RevisionID == nil {
			ids = append(ids, 0)
			continue
		}
		ids = append(ids, *r.RevisionID)
	}
	return ids
}

// revisionState is what the test reads of a revision record.
type revisionState struct {
	status, supersededBy string
	superseded           []string
	closed               bool
}

func stateOf(t testing.TB, app core.App, id int64) revisionState {
	t.Helper()
	r, err := app.FindRecordById("revisions", fmt.Sprint(id))
	if err != nil {
		t.Fatal(err)
	}
	return revisionState{r.GetString("status"), r.GetString("supersededBy"), r.GetStringSlice("supersededFields"),
		!r.GetDateTime("closedAt").IsZero()}
}

func TestSupersession(t *testing.T) {
	f, app, h := served(t)
	both, other := f.A.Keys["both"], f.A.Keys["submit"]

	first := submitted(t, h, both, submitURL, `{"sku":"SKU-1","confidence":60,"name":"One","slug":"one"}`)[0]
	theirs := submitted(t, h, other, submitURL, `{"sku":"SKU-1","name":"Theirs"}`)[0]
	dry := submitted(t, h, both, submitURL+"?dryRun=true", `{"sku":"SKU-1","name":"Dry"}`)
	if dry[0] != 0 || stateOf(t, app, first).status != "pending" || len(stateOf(t, app, first).superseded) != 0 {
		t.Fatalf("a dry run superseded something: %v %+v", dry, stateOf(t, app, first))
	}
	bStore := submitted(t, h, f.B.Keys["both"], submitURL, `{"sku":"SKU-1","name":"B's"}`)[0]

	second := submitted(t, h, both, submitURL, `{"sku":"SKU-1","name":"Two"}`)[0]
	if s := stateOf(t, app, first); s.status != "pending" || !slices.Equal(s.superseded, []string{"name"}) || s.closed || s.supersededBy != "" {
		t.Errorf("after a newer name: %+v, want pending with name superseded", s)
	}
	if s := stateOf(t, app, theirs); s.status != "pending" || len(s.superseded) != 0 {
		t.Errorf("another client's proposal was superseded: %+v", s)
	}
	if s := stateOf(t, app, bStore); s.status != "pending" || len(s.superseded) != 0 {
		t.Errorf("another organization's proposal was superseded: %+v", s)
	}

	// the superseded field cannot be approved; accepting applies the rest
	token := fixture.SuperuserToken(t, app)
	decide := func(id int64, body string) *http.Response {
		return requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", id), token, body).Result()
	}
	if r := decide(first, `{"status":"accepted","approvedFields":["name"]}`); r.StatusCode != 400 {
		t.Errorf("approving a superseded field: %d", r.StatusCode)
	}
	if body := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", first), token,
		`{"status":"accepted","approvedFields":["slug","name"]}`).Body.String(); !strings.Contains(body, `"approvedFields":{"code":"validation_field_superseded"`) ||
		!strings.Contains(body, `\"name\"`) {
		t.Errorf("the refusal does not name the field: %s", body)
	}

	// a batch that proposes the slug and a description supersedes the last
	// pending field of the first: the revision is superseded
	third := submitted(t, h, both, submitURL, `{"sku":"SKU-1","slug":"three","description":"Three."}`)[0]
	if s := stateOf(t, app, first); s.status != "superseded" || !slices.Equal(s.superseded, []string{"name", "slug"}) ||
		!s.closed || s.supersededBy != fmt.Sprint(third) {
		t.Errorf("first after its last field: %+v, want superseded by %d", s, third)
	}
	if r := decide(first, `{"status":"rejected"}`); r.StatusCode != 400 {
		t.Errorf("deciding a superseded revision: %d", r.StatusCode)
	}

	// two items of one batch for one product: the later supersedes the earlier
	pair := submitted(t, h, both, submitURL, `{"sku":"SKU-M","name":"Early"}`, `{"sku":"SKU-M","name":"Late","slug":"late"}`)
	if s := stateOf(t, app, pair[0]); s.status != "superseded" || s.supersededBy != fmt.Sprint(pair[1]) {
		t.Errorf("the earlier item of a batch: %+v", s)
	}
	if s := stateOf(t, app, pair[1]); s.status != "pending" {
		t.Errorf("the later item of a batch: %+v", s)
	}

	// accepting the second applies its name; the third keeps its own fields
	if r := decide(second, `{"status":"accepted"}`); r.StatusCode != 200 {
		t.Fatalf("accept the second: %d", r.StatusCode)
	}

	// what the vendor reads
	list := request(h, http.MethodGet, revisionsURL+"?sku=SKU-1&status=superseded", both, "").Body.String()
	want := fmt.Sprintf(`"id":%d,`, first)
	if !strings.Contains(list, want) || !strings.Contains(list, fmt.Sprintf(`"supersededBy":%d`, third)) ||
		!strings.Contains(list, `"fields":{"name":"superseded","slug":"superseded"}`) || !strings.Contains(list, `"totalElements":1`) {
		t.Errorf("superseded revisions of SKU-1: %s", list)
	}
	metrics := request(h, http.MethodGet, metricsURL, both, "").Body.String()
	if !strings.Contains(metrics, `"totalSubmitted":5,"reviewed":1,"accepted":1,"rejected":0,"pending":2`) ||
		!strings.Contains(metrics, `"superseded":2,"expired":0`) {
		t.Errorf("metrics: %s", metrics)
	}
}

// TestSupersessionRace stores many batches of one client for one product at
// once: whatever the order the writer takes them in, each field ends with
// exactly one pending proposal.
func TestSupersessionRace(t *testing.T) {
	f, app, h := served(t)
	const batches = 24
	var wg sync.WaitGroup
	for i := range batches {
		wg.Go(func() {
			item := fmt.Sprintf(`{"sku":"SKU-1","name":"Name %d"}`, i)
			switch i % 3 {
			case 1:
				item = fmt.Sprintf(`{"sku":"SKU-1","name":"Name %d","slug":"slug-%d"}`, i, i)
			case 2:
				item = fmt.Sprintf(`{"sku":"SKU-1","slug":"slug-%d","files":["f%d.pdf"]}`, i, i)
			}
			submitted(t, h, f.A.Keys["both"], submitURL, item, `{"sku":"SKU-NEW","description":"D"}`)
		})
	}
	wg.Wait()

	var rows []struct {
		Product    string `db:"product"`
		Status     string `db:"status"`
		Proposed   string `db:"proposed"`
		Superseded string `db:"supersededFields"`
	}
	if err := app.DB().Select("product", "status", "proposed", "supersededFields").From("revisions").
		All(&rows); err != nil {
		t.Fatal(err)
	}
	pendingFields := map[string]map[string]int{}
	statuses := map[string]int{}
	for _, r := range rows {
		statuses[r.Status]++
		if r.Status != enrichment.StatusPending {
			continue
		}
		if pendingFields[r.Product] == nil {
			pendingFields[r.Product] = map[string]int{}
		}
		for _, field := range enrichment.EnrichableFields {
			if strings.Contains(r.Proposed, `"`+field+`":`) && !strings.Contains(r.Superseded, `"`+field+`"`) {
				pendingFields[r.Product][field]++
			}
		}
	}
	if len(rows) != 2*batches {
		t.Fatalf("%d revisions, want %d", len(rows), 2*batches)
	}
	for product, fields := range pendingFields {
		for field, n := range fields {
			if n != 1 {
				t.Errorf("product %s: %d pending proposals of %s, want 1", product, n, field)
			}
		}
	}
	if len(pendingFields) != 2 || statuses[enrichment.StatusSuperseded] == 0 {
		t.Errorf("pending fields %v, statuses %v", pendingFields, statuses)
	}
}

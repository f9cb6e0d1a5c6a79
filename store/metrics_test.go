package store_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestWindowsFromCountersMatchTheIndex: for revisions spread over four
// months and windows at arbitrary instants (some on hour, day and month
// boundaries or a millisecond off them, some open, some short), the
// metrics made of whole months, days and hours from the counters and the
// edges from the indexes equal a count of the revisions themselves; and so
// do the figures of one model, one version or both, and byModel.
func TestWindowsFromCountersMatchTheIndex(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	st := store.New(app)
	rng := rand.New(rand.NewPCG(16, 1))
	origin := time.Date(2024, 5, 28, 0, 0, 0, 0, time.UTC)
	span := 120 * 24 * time.Hour
	moment := func() time.Time {
		t := origin.Add(time.Duration(rng.Int64N(int64(span))).Truncate(time.Millisecond))
		if rng.IntN(5) == 0 {
			return t.Truncate(time.Hour) // bucket edges are where counters and index meet
		}
		return t
	}
	statuses := enrichment.Statuses
	client := f.A.Clients["both"]
	first, err := store.NextIDs(app.DB(), "revisions", 600)
	if err != nil {
		t.Fatal(err)
	}
	models := []any{nil, nil, `{"name":"writer","version":"1"}`, `{"name":"writer","version":"2"}`, `{"name":"tagger","version":"1"}`}
	pick := rand.New(rand.NewPCG(16, 2)) // note: its own sequence, so the revisions' draws stay as they were
	for i := range 600 {
		created := moment()
		closed := created.Add(time.Duration(rng.Int64N(int64(20 * 24 * time.Hour))))
		status := statuses[rng.IntN(len(statuses))]
		band, conf, reason, reviewed, closedAt := "", 0, "", "", ""
		if rng.IntN(4) > 0 {
			conf = rng.IntN(101)
			band = enrichment.ConfidenceBand(conf)
		}
		switch status {
		case enrichment.StatusAccepted, enrichment.StatusRejected, enrichment.StatusReverted:
			reviewed, closedAt = store.FormatTime(closed), store.FormatTime(closed)
			if rng.IntN(2) == 0 {
				reason = enrichment.Reasons[rng.IntN(len(enrichment.Reasons))]
			}
		case enrichment.StatusSuperseded, enrichment.StatusExpired:
			closedAt = store.FormatTime(closed)
		}
		_, err := app.DB().Insert("revisions", map[string]any{"id": store.FormatID(first + int64(i)), "organization": string(f.A.Org),
			"apiClient": store.FormatID(client), "product": store.FormatID(f.A.Products["SKU-1"]), "sku": "SKU-1",
			"confidence": conf, "confidenceBand": band, "proposed": `{"name":"x"}`, "base": "{}", "status": status,
			"approvedFields": "[]", "supersededFields": "[]", "reviewedAt": reviewed, "closedAt": closedAt, "reason": reason,
			"created": store.FormatTime(created), "updated": store.FormatTime(created), "model": models[pick.IntN(len(models))]}).Execute()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Metrics().RecountMetrics(f.A.Org); err != nil {
		t.Fatal(err)
	}
	instant := func() time.Time {
		t := moment()
		switch rng.IntN(9) {
		case 0:
			return time.Time{} // open
		case 1:
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) // a day's start
		case 2:
			return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC) // a month's start
		case 3:
			return t.Truncate(time.Hour) // an hour's start
		case 4:
			return t.Truncate(time.Hour).Add(-time.Millisecond) // just before one
		}
		return t
	}
	modelled := 0
	for i := range 300 {
		w := store.Window{Since: instant(), Until: instant()}
		switch {
		case i%7 == 0 && !w.Since.IsZero():
			w.Until = w.Since.Add(time.Duration(rng.Int64N(int64(3 * 24 * time.Hour)))) // short windows too
		case i%5 == 0 && !w.Since.IsZero():
			w.Until = w.Since.Add(time.Duration(rng.Int64N(int64(5 * time.Hour)))) // and a few hours
		}
		filter := []store.ModelFilter{{}, {Name: "writer"}, {Version: "1"}, {Name: "writer", Version: "2"}, {Name: "nobody"}}[i%5]
		got, err := st.Metrics().AcceptanceMetrics(f.A.Org, client, w, filter)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.ByModel) > 0 {
			modelled++
		}
		want, err := st.Metrics().IndexedMetrics(f.A.Org, client, w, filter)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("window %v .. %v, model %+v: counters give\n%+v\nthe revisions\n%+v", fmt.Sprint(w.Since), fmt.Sprint(w.Until), filter, got, want)
		}
	}
	if modelled < 100 {
		t.Errorf("only %d windows had a model version reviewed", modelled)
	}
}

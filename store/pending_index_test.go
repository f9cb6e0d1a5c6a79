package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestOrgStatusIndexHoldsPending checks that the organization-wide index by
// status holds the pending revisions only: a superseded revision leaves it
// (SQLite finds no plan that reads superseded ones from it), so a
// supersession deletes its entry instead of moving it, and the pending ones
// are still counted from it.
func TestOrgStatusIndexHoldsPending(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	st := store.New(app)
	client := f.A.Clients["both"]
	name := func(v string) enrichment.Proposal {
		return enrichment.Proposal{SKU: "SKU-1", Fields: enrichment.Fields{Name: &v}}
	}
	for _, v := range []string{"One", "Two"} {
		if _, err := st.Proposals().Submit(f.A.Org, client, []enrichment.Proposal{name(v)}, store.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(status string) (int, error) {
		var n int
		err := app.DB().NewQuery(`SELECT COUNT(*) FROM {{revisions}} INDEXED BY idx_revisions_org_status
			WHERE [[organization]] = {:org} AND [[apiClient]] = {:client} AND [[status]] = '` + status + `'`).
			Bind(map[string]any{"org": string(f.A.Org), "client": store.FormatID(client)}).Row(&n)
		return n, err
	}
	if n, err := count(enrichment.StatusPending); err != nil || n != 1 {
		t.Errorf("pending revisions from the index: %d, %v; want 1", n, err)
	}
	if n, err := count(enrichment.StatusSuperseded); err == nil || !strings.Contains(err.Error(), "no query solution") {
		t.Errorf("superseded revisions read from the index: %d, %v", n, err)
	}
}

// TestPendingReadBeforeTheTransaction checks that what a batch reads of the
// pending revisions before its write transaction is brought up to date in
// it: a batch stored in between supersedes one revision in part (its
// superseded field shows) and another wholly (it is gone), and its own
// revisions are read whole.
func TestPendingReadBeforeTheTransaction(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	st := store.New(app)
	client := f.A.Clients["both"]
	one, two, slug := "One", "Two", "one"
	submit := func(proposals ...enrichment.Proposal) []int64 {
		t.Helper()
		res, err := st.Proposals().Submit(f.A.Org, client, proposals, store.SubmitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range res {
			ids = append(ids, *r.RevisionID)
		}
		return ids
	}
	first := submit(enrichment.Proposal{SKU: "SKU-1", Fields: enrichment.Fields{Name: &one, Slug: &slug}},
		enrichment.Proposal{SKU: "SKU-M", Fields: enrichment.Fields{Name: &one}})
	products := []string{store.FormatID(f.A.Products["SKU-1"]), store.FormatID(f.A.Products["SKU-M"])}
	before, err := st.Proposals().PendingBefore(f.A.Org, client, products)
	if err != nil {
		t.Fatal(err)
	}
	second := submit(enrichment.Proposal{SKU: "SKU-1", Fields: enrichment.Fields{Name: &two}},
		enrichment.Proposal{SKU: "SKU-M", Fields: enrichment.Fields{Name: &two, Description: &two}})

	want := []string{
		fmt.Sprintf("%d pending [name slug] superseded [name]", first[0]),
		fmt.Sprintf("%d pending [name] superseded []", second[0]),
		fmt.Sprintf("%d pending [name description] superseded []", second[1]),
	}
	pendingNow := func(name string, before any) {
		t.Helper()
		var now []*enrichment.ProposalState
		if err := st.Transaction(func(tx *store.Store) error {
			var err error
			now, err = tx.Proposals().PendingNow(before)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range now {
			got = append(got, fmt.Sprintf("%d %s %v superseded %v", p.ID, p.Status, p.Fields, p.Superseded))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	pendingNow("read again after a commit", before)
	// read when nothing was committed since: as read
	again, err := st.Proposals().PendingBefore(f.A.Org, client, products)
	if err != nil {
		t.Fatal(err)
	}
	pendingNow("nothing committed since", again)
}

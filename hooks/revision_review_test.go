package hooks_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tests"
)

// reviewOf is the review member of a revision as the records API sends it.
type reviewOf struct {
	Decidable      bool   `json:"decidable"`
	Overdue        bool   `json:"overdue"`
	TTLDays        int    `json:"ttlDays"`
	ReasonRequired bool   `json:"reasonRequired"`
	Fields         []item `json:"fields"`
	Attributes     []item `json:"attributes"`
}

type item struct {
	Name         string `json:"name"`
	Outcome      string `json:"outcome"`
	Pending      bool   `json:"pending"`
	Decidable    bool   `json:"decidable"`
	ReasonNeeded bool   `json:"reasonNeeded"`
}

// line writes a review as "decidable overdue ttl=N reason | fields | attributes",
// each item NAME:OUTCOME:PDR with - for false.
func (r reviewOf) line() string {
	flag := func(on bool, s string) string {
		if on {
			return s
		}
		return "-"
	}
	items := func(list []item) string {
		out := make([]string, len(list))
		for i, it := range list {
			out[i] = it.Name + ":" + it.Outcome + ":" + flag(it.Pending, "P") + flag(it.Decidable, "D") + flag(it.ReasonNeeded, "R")
		}
		return strings.Join(out, " ")
	}
	return fmt.Sprintf("%s %s ttl=%d %s | %s | %s", flag(r.Decidable, "decidable"), flag(r.Overdue, "overdue"), r.TTLDays,
		flag(r.ReasonRequired, "reason"), items(r.Fields), items(r.Attributes))
}

// mixedStates gives revFull fields and attributes in every state a pending
// revision has: the slug and the attribute Fit superseded by a newer
// proposal, the others pending; organization A requires a reason.
func mixedStates(t testing.TB, app *tests.TestApp) {
	f := fixture.Get(t)
	if _, err := app.DB().Update("revisions", dbx.Params{"supersededFields": `["slug"]`, "supersededAttributes": `["Fit"]`},
		dbx.HashExp{"id": revFull}).Execute(); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB().Update("organizations", dbx.Params{"requireReason": true, "proposalTtlDays": 30},
		dbx.HashExp{"id": string(f.A.Org)}).Execute(); err != nil {
		t.Fatal(err)
	}
}

// overdueNew makes revNew wait 31 days, longer than organization A allows.
func overdueNew(t testing.TB, app *tests.TestApp) {
	mixedStates(t, app)
	created := store.FormatTime(clock.Now(app).Add(-31 * 24 * time.Hour))
	if _, err := app.DB().Update("revisions", dbx.Params{"created": created}, dbx.HashExp{"id": revNew}).Execute(); err != nil {
		t.Fatal(err)
	}
}

// wantReview checks the review member of the one revision in body.
func wantReview(want string) func(testing.TB, *tests.TestApp, []byte) {
	return func(t testing.TB, _ *tests.TestApp, body []byte) {
		got := decode[struct {
			Review *reviewOf `json:"review"`
		}](t, body)
		if got.Review == nil {
			t.Fatalf("no review member in %s", body)
		}
		if s := got.Review.line(); s != want {
			t.Errorf("review:\n got %s\nwant %s", s, want)
		}
	}
}

const (
	mixedPending = "decidable - ttl=30 reason | name:pending:PDR slug:superseded:--- description:pending:PDR " +
		"attributes:pending:PDR files:pending:PDR | Color:pending:PDR Material:pending:PDR Fit:superseded:--- " +
		"Size:pending:PDR Sole:pending:PDR Power:pending:PDR"
)

// The records API carries, on each revision a reviewer of its organization
// (or a superuser) reads, the review state the server computes: the page
// draws it and works none of it out.
func TestRevisionReviewState(t *testing.T) {
	get := func(c call) call {
		c.method = http.MethodGet
		return c
	}
	run(t, []call{
		get(call{name: "pending with superseded field and attribute, reason required", url: revFull, as: reviewerA,
			before: mixedStates, status: 200, check: wantReview(mixedPending)}),
		get(call{name: "a superuser reads it too", url: revFull, as: "super",
			before: mixedStates, status: 200, check: wantReview(mixedPending)}),
		get(call{name: "overdue: pending, nothing decidable, no reason asked", url: revNew, as: reviewerA,
			before: overdueNew, status: 200, check: wantReview("- overdue ttl=30 - | name:pending:P-- | ")}),
		get(call{name: "accepted in part: applied and not applied, nothing pending", url: revAccepted, as: reviewerA,
			status: 200, check: wantReview("- - ttl=90 - | name:applied:--- | ")}),
		get(call{name: "rejected: not applied", url: revRejected, as: reviewerA,
			status: 200, check: wantReview("- - ttl=90 - | name:not_applied:--- | ")}),
		get(call{name: "in a list, each revision carries its own", as: reviewerA, before: mixedStates, status: 200,
			url: "/api/collections/revisions/records?sort=id&fields=id,review&filter=" + url.QueryEscape("id='"+revFull+"' || id='"+revRejected+"'"),
			check: func(t testing.TB, _ *tests.TestApp, body []byte) {
				got := decode[struct {
					Items []struct {
						ID     string    `json:"id"`
						Review *reviewOf `json:"review"`
					} `json:"items"`
				}](t, body)
				want := map[string]string{revFull: mixedPending, revRejected: "- - ttl=30 - | name:not_applied:--- | "}
				if len(got.Items) != len(want) {
					t.Fatalf("%d items, want %d: %s", len(got.Items), len(want), body)
				}
				for _, it := range got.Items {
					if it.Review == nil || it.Review.line() != want[it.ID] {
						t.Errorf("revision %s: review %+v, want %s", it.ID, it.Review, want[it.ID])
					}
				}
			}}),
		{name: "a decision answers with the state after it", url: revPartial, as: reviewerA,
			body: `{"status":"accepted","approvedFields":["name"]}`, status: 200, absent: []string{"@enrichment"},
			check: wantReview("- - ttl=90 - | name:applied:--- slug:not_applied:--- attributes:not_applied:--- | Material:not_applied:---")},
	})
}

package browser

import (
	"encoding/json/v2"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
)

// call sends a JSON request with a reviewer's token (none: "") and decodes
// the answer into out (nil: not read); it fails the test unless the
// status is want.
func (s *service) call(method, path, token, body string, want int, out any) {
	s.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+path, r)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != want {
		s.t.Fatalf("%s %s: %d %s %v, want %d", method, path, res.StatusCode, raw, err, want)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("%s %s: %s: %v", method, path, raw, err)
		}
	}
}

// token signs reviewer email in through the records API and returns the token.
func (s *service) token(email string) string {
	s.t.Helper()
	var auth struct {
		Token string `json:"token"`
	}
	s.call(http.MethodPost, "/api/collections/reviewers/auth-with-password", "",
		`{"identity":"`+email+`","password":"`+reviewerPassword+`"}`, http.StatusOK, &auth)
	return auth.Token
}

// TestRollback: the reviewer chooses a client and a window, sees the dry
// run's counts (the route's own), and confirms: the revisions are
// reverted and the products' values before restored, except where the
// product changed since.
func TestRollback(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"BULK-0001", 90, enrichment.Fields{Name: ptr("One, renamed")}},
		proposal{"BULK-0002", 80, enrichment.Fields{Name: ptr("Two, renamed")}})
	other := s.submit(a, "submit", proposal{"BULK-0003", 80, enrichment.Fields{Name: ptr("Three, renamed")}})[0]
	for _, id := range append(ids, other) {
		s.decide(id, "accepted")
	}
	changed := s.product(a, "BULK-0002") // changed since: a conflict
	changed.Set("name", "Two, by hand")
	if err := s.app.Save(changed); err != nil {
		t.Fatal(err)
	}
	before := s.record("revisions", ids[0]).GetString("base")
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-trust")))
	waitFor(t, ctx, "the rollback form", `document.querySelector('#rb-client') !== null`)
	pick(t, ctx, "#rb-client", store.FormatID(a.Clients["both"]))
	since := eval[string](t, ctx, `(() => { const d = new Date(Date.now() - 3600e3); d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
		return d.toISOString().slice(0, 16); })()`)
	typeInto(t, ctx, "#rb-since", since)
	do(t, ctx, chromedp.Click(chromedp.CSS("#rb-dry")))
	waitFor(t, ctx, "the dry run's counts", `document.querySelector('#rb-counts') !== null`)
	var dry struct {
		Revisions int `json:"revisions"`
		Conflicts int `json:"conflicts"`
	}
	s.call(http.MethodPost, "/api/enrichment/review/rollbacks", s.token("ann@alpha.example"),
		`{"apiClient":"`+store.FormatID(a.Clients["both"])+`","since":"`+time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)+`","dryRun":true}`,
		http.StatusOK, &dry)
	if got := text(t, ctx, "#rb-counts"); dry.Revisions != 2 || dry.Conflicts != 1 ||
		got != "Would revert 2 revisions: 1 value restored, 1 conflict left alone, 1 product changed." {
		t.Errorf("dry run shown %q; the route answers %+v", got, dry)
	}
	for _, id := range ids {
		if st, _ := s.status(id); st != "accepted" {
			t.Fatalf("the dry run changed revision %s: %s", id, st)
		}
	}
	screenshot(t, ctx, "rollback")
	do(t, ctx, chromedp.Click(chromedp.CSS("#rb-confirm")))
	waitFor(t, ctx, "the rollback done", `document.querySelector('#rb-done') !== null`)
	for _, id := range ids {
		s.waitStatus(id, "reverted")
	}
	if st, _ := s.status(other); st != "accepted" {
		t.Errorf("another client's revision is %s", st)
	}
	if p := s.product(a, "BULK-0001"); !strings.Contains(before, p.GetString("name")) {
		t.Errorf("BULK-0001 is named %q after the rollback, want its name before (%s)", p.GetString("name"), before)
	}
	if p := s.product(a, "BULK-0002"); p.GetString("name") != "Two, by hand" {
		t.Errorf("the conflict was not left alone: %q", p.GetString("name"))
	}
}

// TestRolledBackRevisionSaysWhenAndWho: a revision rolled back says when
// it was reverted and by whom (revertedAt, revertedBy), not the time and
// reviewer of its acceptance.
func TestRolledBackRevisionSaysWhenAndWho(t *testing.T) {
	s := newService(t)
	a := s.f.A
	id := s.submit(a, "both", proposal{"BULK-0001", 90, enrichment.Fields{Name: ptr("One, renamed")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")
	s.addReviewer(a.Org, "bob@alpha.example")
	s.call(http.MethodPatch, "/api/collections/revisions/records/"+id, s.token("bob@alpha.example"), `{"status":"accepted"}`, http.StatusOK, nil)
	// note: accepted long ago, so that its date cannot pass for the rollback's
	if _, err := s.app.DB().NewQuery("UPDATE revisions SET reviewedAt = '2025-01-02 12:00:00.000Z' WHERE id = {:id}").
		Bind(map[string]any{"id": id}).Execute(); err != nil {
		t.Fatal(err)
	}
	s.call(http.MethodPost, "/api/enrichment/review/rollbacks", s.token("ann@alpha.example"),
		`{"apiClient":"`+store.FormatID(a.Clients["both"])+`","since":"2020-01-01T00:00:00Z"}`, http.StatusOK, nil)
	s.waitStatus(id, "reverted")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	openLink(t, ctx, s.url, id)
	waitRevision(t, ctx, id)
	note := text(t, ctx, "#closed-note")
	reverted := strconv.Itoa(s.record("revisions", id).GetDateTime("revertedAt").Time().Year())
	if !strings.HasPrefix(note, "This revision was reverted on ") || !strings.Contains(note, reverted) ||
		!strings.Contains(note, "by ann@alpha.example") || !strings.Contains(note, "bob@alpha.example accepted it") {
		t.Errorf("closed note %q: want the rollback's date (%s) and ann@alpha.example, then bob's acceptance", note, reverted)
	}
	if before, _, _ := strings.Cut(note, " by "); strings.Contains(before, "2025") {
		t.Errorf("closed note %q dates the rollback by the acceptance", note)
	}
}

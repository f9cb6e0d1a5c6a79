package routes_test

import (
	"bufio"
	"encoding/json/v2"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// realtimeEvent is one record message of PocketBase's realtime API.
type realtimeEvent struct {
	Action string `json:"action"`
	Record struct {
		ID           string `json:"id"`
		Status       string `json:"status"`
		Organization string `json:"organization"`
	} `json:"record"`
}

// subscribeRevisions opens PocketBase's realtime stream (server-sent
// events) with token, subscribes it to every revision and returns the
// record messages as they come.
func subscribeRevisions(t testing.TB, base, token string) <-chan realtimeEvent {
	t.Helper()
	res, err := http.Get(base + "/api/realtime")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	connected, events := make(chan string, 1), make(chan realtimeEvent, 100)
	go func() {
		defer close(events)
		scanner := bufio.NewScanner(res.Body)
		scanner.Buffer(make([]byte, 1<<20), 1<<20)
		var name string
		for scanner.Scan() {
			line := scanner.Text()
			switch {
			case strings.HasPrefix(line, "event:"):
				name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:") && name == "PB_CONNECT":
				var c struct {
					ClientID string `json:"clientId"`
				}
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data:")), &c)
				connected <- c.ClientID
			case strings.HasPrefix(line, "data:") && strings.HasPrefix(name, "revisions"):
				var e realtimeEvent
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data:")), &e); err == nil {
					events <- e
				}
			}
		}
	}()
	var client string
	select {
	case client = <-connected:
	case <-time.After(10 * time.Second):
		t.Fatal("no PB_CONNECT from the realtime stream")
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/api/realtime",
		strings.NewReader(fmt.Sprintf(`{"clientId":%q,"subscriptions":["revisions/*"]}`, client)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", token)
	sub, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Body.Close()
	if sub.StatusCode != http.StatusNoContent {
		body, _ := io.ReadAll(sub.Body)
		t.Fatalf("subscribe: %d %s", sub.StatusCode, body)
	}
	return events
}

// expectEvents reads n record messages from events, in any order, and
// checks them against want: "action id status".
func expectEvents(t *testing.T, who string, events <-chan realtimeEvent, want ...string) {
	t.Helper()
	var got []string
	for range want {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("%s: stream closed after %v", who, got)
			}
			got = append(got, e.Action+" "+e.Record.ID+" "+e.Record.Status)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: got %v, still waiting for the rest of %v", who, got, want)
		}
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("%s: got %v, want %v", who, got, want)
			return
		}
	}
}

// TestRealtimeFollowsServiceWrites: PocketBase realtime subscribers to
// revisions hear of the revisions the service writes itself, under the
// collection's rules: create for each revision a submission stores, update
// when one is superseded and when one expires; a reviewer of another
// organization hears nothing of them.
func TestRealtimeFollowsServiceWrites(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	h := srv.Config.Handler
	reviewerA := subscribeRevisions(t, srv.URL, fixture.ReviewerToken(t, app, string(f.A.Org)))
	superuser := subscribeRevisions(t, srv.URL, fixture.SuperuserToken(t, app))
	reviewerB := subscribeRevisions(t, srv.URL, fixture.ReviewerToken(t, app, string(f.B.Org)))
	id := func(n int64) string { return store.FormatID(n) }

	key := f.A.Keys["submit"]
	first := submitted(t, h, key, submitURL, `{"sku":"SKU-1","name":"Live one"}`, `{"sku":"SKU-M","name":"Live two"}`)
	for who, events := range map[string]<-chan realtimeEvent{"A's reviewer": reviewerA, "the superuser": superuser} {
		expectEvents(t, who, events, "create "+id(first[0])+" pending", "create "+id(first[1])+" pending")
	}

	newer := submitted(t, h, key, submitURL, `{"sku":"SKU-1","name":"Live three"}`)
	for who, events := range map[string]<-chan realtimeEvent{"A's reviewer": reviewerA, "the superuser": superuser} {
		expectEvents(t, who, events, "create "+id(newer[0])+" pending", "update "+id(first[0])+" superseded")
	}

	if n, err := store.New(app).Proposals().ExpireRevisions(f.A.Org, []string{id(first[1])}, clock.Now(app)); err != nil || n != 1 {
		t.Fatalf("expired %d: %v", n, err)
	}
	for who, events := range map[string]<-chan realtimeEvent{"A's reviewer": reviewerA, "the superuser": superuser} {
		expectEvents(t, who, events, "update "+id(first[1])+" expired")
	}

	// a revision superseded right after it was stored (both announced in one
	// window) still gets its update after its create
	one := submitted(t, h, key, submitURL, `{"sku":"SKU-M-RED","name":"Quick one"}`)
	two := submitted(t, h, key, submitURL, `{"sku":"SKU-M-RED","name":"Quick two"}`)
	var got []string
	for range 3 {
		select {
		case e := <-reviewerA:
			got = append(got, e.Action+" "+e.Record.ID+" "+e.Record.Status)
		case <-time.After(10 * time.Second):
			t.Fatalf("A's reviewer: got %v, want three messages", got)
		}
	}
	if !slices.Contains(got, "create "+id(two[0])+" pending") || !slices.Contains(got, "update "+id(one[0])+" superseded") ||
		!slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, "create "+id(one[0])+" ") }) {
		t.Errorf("A's reviewer on a revision superseded at once: %v", got)
	}

	// one superseded by a later item of its own batch: its create carries
	// its state, and its update follows
	both := submitted(t, h, key, submitURL, `{"sku":"SKU-M-BLUE","name":"Batch one"}`, `{"sku":"SKU-M-BLUE","name":"Batch two"}`)
	expectEvents(t, "A's reviewer", reviewerA, "create "+id(both[0])+" superseded", "create "+id(both[1])+" pending",
		"update "+id(both[0])+" superseded")

	// B's reviewer: the first revision message is B's own, none of A's before it
	b := submitted(t, h, f.B.Keys["submit"], submitURL, `{"sku":"SKU-1","name":"B live"}`)
	expectEvents(t, "B's reviewer", reviewerB, "create "+id(b[0])+" pending")
}

package migrations_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// TestWebhookMessageIDsMigrated: deliveries made before message ids existed
// get one each when the server starts (msg_ and 32 random hexadecimal
// characters, all different), but for those already attempted, which keep
// their number, the webhook-id their receivers saw; new deliveries get msg_
// and 26 time-ordered characters.
func TestWebhookMessageIDsMigrated(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	st := store.New(app)
	client := f.A.Clients["submit"]
	w, err := st.Outbox().CreateWebhook(f.A.Org, client, "https://hooks.example/x", []string{"ping"}, "sealed")
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := st.Outbox().QueuePing(f.A.Org, client, w.ID); err != nil {
			t.Fatal(err)
		}
	}
	ids := func() []string {
		var out []string
		if err := app.DB().Select("messageId").From(schema.WebhookDeliveries).OrderBy("CAST(id AS INTEGER)").Column(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	checkIDs := func(what string, shape *regexp.Regexp) {
		t.Helper()
		got, seen := ids(), map[string]bool{}
		for _, id := range got {
			if !shape.MatchString(id) || seen[id] {
				t.Errorf("%s: message ids %q", what, got)
				return
			}
			seen[id] = true
		}
		if len(got) != 5 {
			t.Errorf("%s: %d deliveries", what, len(got))
		}
	}
	checkIDs("new deliveries", regexp.MustCompile(`^msg_[0-9A-Z]{26}$`))

	// as an earlier release left them: no message id, one attempted already
	if _, err := app.DB().Update(schema.WebhookDeliveries, dbx.Params{"messageId": ""}, nil).Execute(); err != nil {
		t.Fatal(err)
	}
	var attempted string
	if err := app.DB().Select("MAX(CAST(id AS INTEGER))").From(schema.WebhookDeliveries).Row(&attempted); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB().Update(schema.WebhookDeliveries, dbx.Params{"attempts": 1}, dbx.HashExp{"id": attempted}).Execute(); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB().Delete("_migrations", dbx.HashExp{"file": "1795274010_webhook_message_ids.go"}).Execute(); err != nil {
		t.Fatal(err)
	}
	if err := app.RunAllMigrations(); err != nil {
		t.Fatal(fmt.Errorf("run the migrations again: %w", err))
	}
	checkIDs("deliveries of an earlier release", regexp.MustCompile(`^(msg_[0-9A-F]{32}|`+attempted+`)$`))
	if got := ids(); got[len(got)-1] != attempted {
		t.Errorf("the attempted delivery %s has message id %q, want its number", attempted, got[len(got)-1])
	}
}

package store_test

import (
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestIDsEndAtTheAPIsLargest: the sequence hands out ids up to 2^53-1, the
// largest the API shows as a JSON integer, and then refuses, saying why,
// rather than giving a number no client reads exactly.
func TestIDsEndAtTheAPIsLargest(t *testing.T) {
	app := fixture.Get(t).NewApp(t)
	t.Cleanup(app.Cleanup)
	if err := store.ClaimID(app.DB(), "webhooks", enrichment.MaxID-1); err != nil {
		t.Fatal(err)
	}
	if first, err := store.NextIDs(app.DB(), "webhooks", 1); err != nil || first != enrichment.MaxID {
		t.Fatalf("the last id: %d, %v; want %d", first, err, int64(enrichment.MaxID))
	}
	if first, err := store.NextIDs(app.DB(), "webhooks", 1); err == nil || !strings.Contains(err.Error(), "used up") {
		t.Errorf("an id past the largest: %d, %v; want it refused", first, err)
	}
}

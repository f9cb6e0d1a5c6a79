package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShopifyMerchantCycle is a Shopify merchant's path with the binary: its
// product export in with one command, a vendor's proposal accepted, the
// enriched catalog out as a Shopify CSV while the server runs, and that
// file read back in changing nothing.
func TestShopifyMerchantCycle(t *testing.T) {
	dir := t.TempDir()
	var org, key struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	cliJSON(t, dir, &org, "org", "create", "--name", "Northwind Shop", "--json")
	orgID := fmt.Sprint(org.ID)
	var counts importCounts
	cliJSON(t, dir, &counts, "import", "--org", orgID, "--format", "shopify-csv", "--json",
		filepath.Join("..", "catalog", "testdata", "shopify_export.csv"))
	if counts.Created != 6 {
		t.Fatalf("import of the Shopify export: %+v", counts)
	}
	cliJSON(t, dir, &key, "apikey", "create", "--org", orgID, "--scopes", "catalog:read,catalog:submit", "--json")
	cli(t, dir, "superuser", "upsert", "root@example.com", "shopify-password-1")

	srv := startServe(t, dir)
	defer srv.stop()
	api := srv.base + "/api/enrichment"
	a := send(http.MethodPost, api+"/products/submissions", key.Key, []byte(`{"items": [
		{"sku": "APRON-1", "name": "Linen Apron, Natural", "attributes": [{"attribute": "Material", "detail": "Washed linen"}]}]}`))
	ids, err := parseIDs(a.body)
	if a.status != http.StatusOK || err != nil || len(ids) != 1 {
		t.Fatalf("submission: %d %v %s", a.status, err, a.body)
	}
	token := signIn(t, srv.base, "_superusers", "root@example.com", "shopify-password-1")
	url := fmt.Sprintf("%s/api/collections/revisions/records/%d", srv.base, ids[0])
	if d := pbJSON(http.MethodPatch, url, token, map[string]string{"status": "accepted"}); d.status != http.StatusOK {
		t.Fatalf("accept: %d %s", d.status, d.body)
	}
	afterReview := lastProductWrite(t, dir)

	out := filepath.Join(t.TempDir(), "enriched.csv")
	if got := cli(t, dir, "export", "--org", orgID, "--format", "shopify-csv", out); !strings.HasPrefix(got, "Exported 6 products") {
		t.Errorf("export: %q", got)
	}
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(file), `linen-apron,"Linen Apron, Natural",`) ||
		!strings.Contains(string(file), "Material (product.metafields.custom.material)") {
		t.Errorf("the export lacks the accepted values:\n%s", file)
	}

	cliJSON(t, dir, &counts, "import", "--org", orgID, "--format", "shopify-csv", "--json", out)
	if want := (importCounts{Unchanged: 6}); counts != want {
		t.Errorf("the export read back: %+v, want %+v", counts, want)
	}
	if changed := modifiedSince(t, api, key.Key, afterReview); len(changed) != 0 {
		t.Errorf("the export read back moved %v", changed)
	}
}

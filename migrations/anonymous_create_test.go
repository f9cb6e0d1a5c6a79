package migrations_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// TestNoAnonymousCreate: PocketBase's default users collection is gone,
// and no collection left lets a caller without a key or a token create a
// record, through the records API or an auth collection's sign-up.
func TestNoAnonymousCreate(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	if _, err := app.FindCollectionByNameOrId("users"); err == nil {
		t.Error("the users collection is still there")
	}
	h := fixture.Serve(t, app)
	collections, err := app.FindAllCollections()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"users"} // gone: 404
	for _, c := range collections {
		names = append(names, c.Name)
	}
	const body = `{"email":"anon@example.com","password":"anonymous-pw","passwordConfirm":"anonymous-pw","name":"x","organization":"1"}`
	for _, name := range names {
		req := httptest.NewRequest(http.MethodPost, "/api/collections/"+name+"/records", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code < 400 {
			t.Errorf("an anonymous caller created a record in %s: %d %.200s", name, rec.Code, rec.Body)
		}
	}
}

package routes_test

import (
	"net/http"
	"testing"
)

// TestContentTypes: a body that declares a Content-Type other than
// application/json (parameters and letter case aside) is 415 on every
// route that takes a body; a body without one is read as JSON; a request
// without a key is 401 first.
func TestContentTypes(t *testing.T) {
	f, _, h := served(t)
	read, submit := f.A.Keys["read"], f.A.Keys["submit"]
	skus, item := `{"skus":["SKU-1"]}`, `{"items":[{"sku":"SKU-1","name":"Typed"}]}`
	hook := `{"url":"https://hooks.example/x","events":["revision.accepted"]}`
	for _, c := range []hostile{
		{name: "JSON labelled text/plain", path: lookupURL, key: read, ctype: "text/plain", body: skus, status: 415},
		{name: "JSON labelled text/plain with a charset", path: lookupURL, key: read, ctype: "text/plain; charset=utf-8", body: skus, status: 415},
		{name: "curl's default form type", path: submitURL, key: submit, ctype: "application/x-www-form-urlencoded", body: item, status: 415},
		{name: "a multipart form", path: submitURL, key: submit, ctype: "multipart/form-data; boundary=X", body: item, status: 415},
		{name: "XML", path: lookupURL, key: read, ctype: "application/xml", body: skus, status: 415},
		{name: "a type that only starts like JSON", path: lookupURL, key: read, ctype: "application/jsonp", body: skus, status: 415},
		{name: "a JSON suffix type", path: lookupURL, key: read, ctype: "application/merge-patch+json", body: skus, status: 415},
		{name: "a malformed type", path: lookupURL, key: read, ctype: "application/json; =", body: skus, status: 415},
		{name: "a webhook labelled text/plain", path: webhooksURL, key: submit, ctype: "text/plain", body: hook, status: 415},
		{name: "text/plain without a key", path: submitURL, ctype: "text/plain", body: item, status: 401},
		{name: "JSON", path: lookupURL, key: read, body: skus, status: 200},
		{name: "JSON with a charset, in capitals", path: lookupURL, key: read, ctype: "Application/JSON; charset=UTF-8", body: skus, status: 200},
		{name: "no Content-Type: read as JSON", path: submitURL, key: submit, ctype: "-", body: item, status: 200},
		{name: "text/plain without a body", path: lookupURL, key: read, ctype: "text/plain", status: 400},
	} {
		c.method = http.MethodPost
		if r := sendHostile(h, c); r.Code != c.status {
			t.Errorf("%s: %d, want %d: %.300s", c.name, r.Code, c.status, r.Body)
		}
	}
}

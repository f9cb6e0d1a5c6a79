package main

import (
	"math/rand/v2"
	"net/http"
)

// The dashboard's records lists, as PocketBase's admin UI (v0.40) asks for
// them on opening a collection: the first page of 40, newest first
// (sort=-@rowid), every visible relation expanded, skipTotal=1; and beside
// it the total it shows, one record without skipTotal (a COUNT over the
// collection). As a superuser, who sees every organization.

// dashboardLists are the collections the scenarios open, with the
// relations the dashboard expands for each.
var dashboardLists = []struct{ name, collection, expand string }{
	{"dashboard-products", "products", "organization,attributeTemplate,brand,variantMaster"},
	{"dashboard-revisions", "revisions", "organization,apiClient,product,supersededBy"},
}

// dashboardList is the dashboard's first page of collection.
func (t *target) dashboardList(name, collection, expand string) *kind {
	return &kind{Name: name, Header: http.Header{"Authorization": {t.SuToken}},
		Next: func(_ *rand.Rand, _ int) request {
			return request{Method: "GET", URL: "/api/collections/" + collection +
				"/records?page=1&perPage=40&skipTotal=1&sort=-%40rowid&expand=" + expand}
		}}
}

// dashboardCount is the dashboard's total of collection.
func (t *target) dashboardCount(name, collection string) *kind {
	return &kind{Name: name, Header: http.Header{"Authorization": {t.SuToken}},
		Next: func(_ *rand.Rand, _ int) request {
			return request{Method: "GET", URL: "/api/collections/" + collection + "/records?page=1&perPage=1&fields=id"}
		}}
}

// dashboardScenarios are the dashboard's lists and totals, each alone.
func dashboardScenarios(t *target, c int) []scenario {
	var list []scenario
	for _, d := range dashboardLists {
		list = append(list,
			one("PocketBase's dashboard opening "+d.collection+": the first 40, newest first, relations expanded, as a superuser",
				t.dashboardList(d.name, d.collection, d.expand), c),
			one("PocketBase's dashboard's total of "+d.collection+" (perPage 1, fields id, counted), as a superuser",
				t.dashboardCount(d.name+"-count", d.collection), c))
	}
	return list
}

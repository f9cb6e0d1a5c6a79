package routes

import (
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var productRoutes = []route{
	{Method: http.MethodGet, Path: "/products", Scope: enrichment.ScopeRead, Handler: productsExport},
	{Method: http.MethodPost, Path: "/products/skus", Scope: enrichment.ScopeRead, Handler: productsBySKU},
}

// Export paging: pageSize is clamped into [1, maxPageSize].
const (
	defaultPageSize = 100
	maxPageSize     = 500
	maxSKUs         = 50
	maxQueryText    = 200 // characters of the export's query
)

// productsExport returns one page of the organization's active products.
func productsExport(e *core.RequestEvent) error {
	q, err := readExportQuery(e)
	if err != nil {
		return err
	}
	tag, err := generationTag(e)
	if err != nil {
		return internalError(e, "tag the export", err)
	}
	if notModified(e, tag) {
		return nil
	}
	page, err := store.New(e.App).Catalog().ExportPage(requestOrg(e), q)
	if err != nil {
		return internalError(e, "export products", err)
	}
	return e.JSON(http.StatusOK, page)
}

func readExportQuery(e *core.RequestEvent) (store.ExportQuery, error) {
	values := e.Request.URL.Query()
	q := store.ExportQuery{Selection: requestClient(e).Catalog}
	errs := validation.Errors{}
	q.Page, q.PageSize = readPaging(values, errs)
	var err error
	if q.Since, err = queryTime(values, "modifiedSince"); err != nil {
		errs["modifiedSince"] = err
	}
	if q.Text = values.Get("query"); utf8.RuneCountInString(q.Text) > maxQueryText {
		errs["query"] = validation.NewError("validation_length_too_long", "must be at most "+strconv.Itoa(maxQueryText)+" characters")
	}
	if len(errs) > 0 {
		return q, e.BadRequestError(firstMessage(errs), errs)
	}
	return q, nil
}

// skuLookup is the body of POST /products/skus.
type skuLookup struct {
	SKUs []string `json:"skus"`
}

func (r skuLookup) validate(e *core.RequestEvent) error {
	switch {
	case len(r.SKUs) == 0:
		return e.BadRequestError("A list of product numbers is required.",
			validation.Errors{"skus": validation.NewError("validation_required", "Cannot be blank.")})
	case len(r.SKUs) > maxSKUs:
		return e.BadRequestError("More than "+strconv.Itoa(maxSKUs)+" items requested.",
			validation.Errors{"skus": validation.NewError("validation_length_too_long", "Must have at most 50 items.")})
	}
	return nil
}

// productsBySKU returns the organization's active products with the given
// SKUs in the export's envelope, with nominal pagination.
func productsBySKU(e *core.RequestEvent) error {
	var req skuLookup
	if err := readJSON(e, &req); err != nil {
		return err
	}
	if err := req.validate(e); err != nil {
		return err
	}
	items, err := store.New(e.App).Catalog().ProductsBySKU(requestOrg(e), requestClient(e).Catalog, req.SKUs)
	if err != nil {
		return internalError(e, "look up products by sku", err)
	}
	return e.JSON(http.StatusOK, enrichment.Page[enrichment.Product]{
		Items:         items,
		Page:          1,
		PageSize:      len(req.SKUs),
		TotalElements: len(items),
		TotalPages:    1,
	})
}

// firstMessage turns the first (by key order) validation error into the
// response's message, so a single bad parameter reads plainly.
func firstMessage(errs validation.Errors) string {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return "Invalid " + keys[0] + ": " + errs[keys[0]].Error()
}

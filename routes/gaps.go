package routes

import (
	"net/http"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var gapRoutes = []route{
	{Method: http.MethodGet, Path: "/gaps", Scope: enrichment.ScopeRead, Handler: gapsList},
}

// gapsList returns one page of the organization's active products with a
// gap, most important gap first.
func gapsList(e *core.RequestEvent) error {
	q, err := readGapsQuery(e)
	if err != nil {
		return err
	}
	tag, err := generationTag(e)
	if err != nil {
		return internalError(e, "tag the gaps", err)
	}
	if notModified(e, tag) {
		return nil
	}
	page, err := store.New(e.App).Catalog().GapsPage(requestOrg(e), q)
	if err != nil {
		return internalError(e, "list the gaps", err)
	}
	return e.JSON(http.StatusOK, page)
}

func readGapsQuery(e *core.RequestEvent) (store.GapsQuery, error) {
	values := e.Request.URL.Query()
	q := store.GapsQuery{Selection: requestClient(e).Catalog}
	errs := validation.Errors{}
	q.Page, q.PageSize = readPaging(values, errs)
	q.Category, q.Slot = values.Get("category"), values.Get("slot")
	if q.Slot != "" && !enrichment.IsSlot(q.Slot) {
		errs["slot"] = validation.NewError("validation_invalid_slot", "must be description, images or attributes.NAME")
	}
	catalog := store.New(e.App).Catalog()
	for _, f := range []struct {
		param, collection string
		to                *string
	}{{"template", schema.AttributeTemplates, &q.Template}, {"brand", schema.Brands, &q.Brand}} {
		ref := values.Get(f.param)
		if ref == "" {
			continue
		}
		id, ok, err := catalog.NamedID(requestOrg(e), f.collection, ref)
		if err != nil {
			return q, internalError(e, "list the gaps", err)
		}
		if !ok {
			errs[f.param] = validation.NewError("validation_unknown_"+f.param, "no "+f.param+" has this id or name")
		}
		*f.to = id
	}
	if len(errs) > 0 {
		return q, e.BadRequestError(firstMessage(errs), errs)
	}
	return q, nil
}

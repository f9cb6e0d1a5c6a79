package routes

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var queueRoutes = []route{
	{Method: http.MethodGet, Path: "/review/queue", Reviewer: true, Handler: reviewQueue},
}

// maxQueueExclude bounds the revisions a queue request may leave out: the
// decisions a page holds before sending them.
const maxQueueExclude = 5000

// reviewQueue answers the reviewers' page with a page of the pending
// revisions it may review (docs/api.md), filtered and ordered as asked,
// with the counts per confidence band under the same filters.
func reviewQueue(e *core.RequestEvent) error {
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	q, err := readQueueQuery(e)
	if err != nil {
		return err
	}
	queue, err := store.New(e.App).Review().ReviewQueue(orgs, q)
	if err != nil {
		return internalError(e, "read the review queue", err)
	}
	return e.JSON(http.StatusOK, queue)
}

// readQueueQuery reads the queue's filters, order and page; 400 naming the
// first bad parameter.
func readQueueQuery(e *core.RequestEvent) (store.QueueQuery, error) {
	q, errs := readQueueValues(e, e.Request.URL.Query())
	if len(errs) > 0 {
		return q, e.BadRequestError(firstMessage(errs), errs)
	}
	return q, nil
}

// readQueueValues reads the queue's parameters from values: its filters,
// order and page, each bad one in errs under its name.
func readQueueValues(e *core.RequestEvent, values url.Values) (store.QueueQuery, validation.Errors) {
	errs := validation.Errors{}
	q := store.QueueQuery{
		Band: cmp.Or(values.Get("band"), store.BandAny),
		SKU:  strings.TrimSpace(values.Get("sku")),
		Sort: cmp.Or(values.Get("sort"), store.QueueSorts[0]),
	}
	q.Page, q.PageSize = readPaging(values, errs)
	readQueueTogether(e, values, &q, errs)
	for name, id := range map[string]*int64{"client": &q.Client, "template": &q.Template, "revision": &q.Revision} {
		if raw := values.Get(name); raw != "" {
			var err error
			if *id, err = enrichment.ParseID(raw); err != nil {
				errs[name] = validation.NewError("validation_invalid_id", "must be a record id")
			}
		}
	}
	if bands := append([]string{store.BandAny, store.BandNone}, enrichment.ConfidenceBands...); !slices.Contains(bands, q.Band) {
		errs["band"] = validation.NewError("validation_in_invalid", "must be one of "+strings.Join(bands, ", "))
	}
	if !slices.Contains(store.QueueSorts, q.Sort) {
		errs["sort"] = validation.NewError("validation_in_invalid", "must be one of "+strings.Join(store.QueueSorts, ", "))
	}
	if utf8.RuneCountInString(q.SKU) > enrichment.MaxNameLength { // note: no SKU is longer
		errs["sku"] = validation.NewError("validation_length_too_long", fmt.Sprintf("must be at most %d characters", enrichment.MaxNameLength))
	}
	if raw := values.Get("exclude"); raw != "" {
		ids := strings.Split(raw, ",")
		if len(ids) > maxQueueExclude {
			errs["exclude"] = validation.NewError("validation_too_many", fmt.Sprintf("must name at most %d revisions", maxQueueExclude))
			ids = nil
		}
		for _, raw := range ids {
			id, err := enrichment.ParseID(raw)
			if err != nil {
				errs["exclude"] = validation.NewError("validation_invalid_id", "must be record ids separated by commas")
				break
			}
			q.Exclude = append(q.Exclude, id)
		}
	}
	return q, errs
}

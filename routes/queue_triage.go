package routes

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

// Values of the queue's claimed parameter: leave out the revisions other
// reviewers hold (the default), or list them too.
const (
	claimedExclude = "exclude"
	claimedInclude = "include"
)

// maxOlderThan bounds the olderThan filter, in days (a hundred years).
const maxOlderThan = 36500

// readQueueTogether reads who asks for the queue and the parameters of
// reviewers together: claimed and the triage filters (docs/api.md); each
// bad value is added to errs under its name.
func readQueueTogether(e *core.RequestEvent, values url.Values, q *store.QueueQuery, errs validation.Errors) {
	q.Now = clock.Now(e.App)
	if e.Auth.Collection().Name == schema.Reviewers {
		q.Viewer = e.Auth.Id
	}
	switch values.Get("claimed") {
	case "", claimedExclude:
	case claimedInclude:
		q.WithClaimed = true
	default:
		errs["claimed"] = validation.NewError("validation_in_invalid", "must be exclude or include")
	}
	readTriageField(values.Get("field"), q, errs)
	readTriageText(values, q, errs)
	readTriageFlags(values, q, errs)
}

// readTriageField reads the field filter: an enrichable field or
// attributes.NAME.
func readTriageField(field string, q *store.QueueQuery, errs validation.Errors) {
	if field == "" {
		return
	}
	name, attr, isAttr := strings.Cut(field, ".")
	switch {
	case !slices.Contains(enrichment.EnrichableFields, name) || (isAttr && name != "attributes"):
		errs["field"] = validation.NewError("validation_in_invalid",
			"must be one of "+strings.Join(enrichment.EnrichableFields, ", ")+", or attributes.NAME")
	case isAttr && (strings.TrimSpace(attr) == "" || utf8.RuneCountInString(attr) > enrichment.MaxNameLength):
		errs["field"] = validation.NewError("validation_invalid_attribute",
			fmt.Sprintf("must name an attribute of 1 to %d characters after attributes.", enrichment.MaxNameLength))
	}
	q.Field = field
}

// readTriageText reads the brand, category and text filters.
func readTriageText(values url.Values, q *store.QueueQuery, errs validation.Errors) {
	if raw := values.Get("brand"); raw != "" {
		var err error
		if q.Brand, err = enrichment.ParseID(raw); err != nil {
			errs["brand"] = validation.NewError("validation_invalid_id", "must be a brand id")
		}
	}
	// note: an empty model is refused, not read as no filter, as the
	// metrics read it: in a group decision's filter it would widen the
	// rejection to every model
	for name, text := range map[string]*string{"model": &q.Model, "modelVersion": &q.ModelVersion} {
		*text = values.Get(name)
		if values.Has(name) && !enrichment.ValidModelText(*text) {
			errs[name] = validation.NewError("validation_invalid_model", fmt.Sprintf("must be 1 to %d characters", enrichment.MaxModelTextLength))
		}
	}
	for name, text := range map[string]*string{"category": &q.Category, "q": &q.Text} {
		*text = strings.TrimSpace(values.Get(name))
		if utf8.RuneCountInString(*text) > enrichment.MaxNameLength {
			errs[name] = validation.NewError("validation_length_too_long", fmt.Sprintf("must be at most %d characters", enrichment.MaxNameLength))
		}
	}
}

// readTriageFlags reads the competing and issues flags and the pending age.
func readTriageFlags(values url.Values, q *store.QueueQuery, errs validation.Errors) {
	for name, flag := range map[string]**bool{"competing": &q.Competing, "issues": &q.Issues} {
		if !values.Has(name) {
			continue
		}
		v, err := queryBool(values, name)
		if err != nil || strings.TrimSpace(values.Get(name)) == "" {
			errs[name] = validation.NewError("validation_invalid_bool", "must be true or false")
			continue
		}
		*flag = &v
	}
	if values.Has("olderThan") {
		days, err := queryInt(values, "olderThan", 0)
		if err != nil || days < 0 || days > maxOlderThan || strings.TrimSpace(values.Get("olderThan")) == "" {
			errs["olderThan"] = validation.NewError("validation_invalid_days", fmt.Sprintf("must be a whole number of days from 0 to %d", maxOlderThan))
		}
		q.OlderThan = days
	}
}

package routes

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/apierror"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/catalog-enrichment/enrichment/webhooks"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var webhookRoutes = []route{
	{Method: http.MethodPost, Path: "/webhooks", Scope: enrichment.ScopeSubmit, Handler: webhooksCreate},
	{Method: http.MethodGet, Path: "/webhooks", Scope: enrichment.ScopeSubmit, Handler: webhooksList},
	{Method: http.MethodDelete, Path: "/webhooks/{id}", Scope: enrichment.ScopeSubmit, Handler: webhooksDelete},
	{Method: http.MethodGet, Path: "/webhooks/{id}/deliveries", Scope: enrichment.ScopeSubmit, Handler: webhookDeliveriesList},
	{Method: http.MethodPost, Path: "/webhooks/{id}/test", Scope: enrichment.ScopeSubmit, Handler: webhooksTest},
}

// maxWebhookURL bounds a subscription's URL, in characters.
const maxWebhookURL = 2000

// webhookRequest is the body of POST /webhooks.
type webhookRequest struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
}

// validate checks the URL's form and the events; where the URL points is
// checked next, as it needs the network.
func (r webhookRequest) validate() validation.Errors {
	errs := validation.Errors{}
	switch {
	case strings.TrimSpace(r.URL) == "":
		errs["url"] = validation.NewError("validation_required", "must be an https URL")
	case utf8.RuneCountInString(r.URL) > maxWebhookURL:
		errs["url"] = validation.NewError("validation_length_too_long", "must be at most 2000 characters")
	}
	if len(r.Events) == 0 {
		errs["events"] = validation.NewError("validation_required", "must name at least one event")
	}
	for i, ev := range r.Events {
		if !slices.Contains(enrichment.WebhookEvents, ev) {
			errs["events."+strconv.Itoa(i)] = validation.NewError("validation_in_invalid",
				"must be one of "+strings.Join(enrichment.WebhookEvents, ", "))
		}
	}
	return errs
}

// webhooksCreate subscribes the calling client to events; the answer
// holds the signing secret, shown this once.
func webhooksCreate(e *core.RequestEvent) error {
	var req webhookRequest
	if err := readJSON(e, &req); err != nil {
		return err
	}
	if errs := req.validate(); len(errs) > 0 {
		return e.BadRequestError(firstMessage(errs), errs)
	}
	ctx, cancel := context.WithTimeout(e.Request.Context(), 5*time.Second)
	defer cancel()
	if err := webhooks.CheckURL(ctx, req.URL); err != nil {
		errs := validation.Errors{"url": validation.NewError("validation_invalid_url", err.Error())}
		return e.BadRequestError(firstMessage(errs), errs)
	}
	secret := webhooks.NewSecret()
	sealed, err := webhooks.Seal(e.App, secret)
	if err != nil {
		return internalError(e, "seal a webhook secret", err)
	}
	client := requestClient(e)
	events := slices.Compact(slices.Sorted(slices.Values(req.Events)))
	slices.SortFunc(events, func(a, b string) int {
		return slices.Index(enrichment.WebhookEvents, a) - slices.Index(enrichment.WebhookEvents, b)
	})
	w, err := store.New(e.App).Outbox().CreateWebhook(requestOrg(e), client.ID, req.URL, events, sealed)
	if errors.Is(err, store.ErrTooManyWebhooks) {
		return e.BadRequestError("An API client may have at most "+strconv.Itoa(enrichment.MaxWebhooksPerClient)+
			" webhook subscriptions; delete one first.", nil)
	}
	if err != nil {
		return internalError(e, "create a webhook", err)
	}
	return e.JSON(http.StatusCreated, enrichment.CreatedWebhook{Webhook: w, Secret: secret})
}

// webhooksList lists the calling client's subscriptions, without secrets.
func webhooksList(e *core.RequestEvent) error {
	list, err := store.New(e.App).Outbox().Webhooks(requestOrg(e), requestClient(e).ID)
	if err != nil {
		return internalError(e, "list webhooks", err)
	}
	return e.JSON(http.StatusOK, list)
}

// webhooksDelete deletes one of the calling client's subscriptions.
func webhooksDelete(e *core.RequestEvent) error {
	id, err := knownWebhook(e)
	if err != nil {
		return err
	}
	if err := readNoBody(e); err != nil {
		return err
	}
	err = store.New(e.App).Outbox().DeleteWebhook(requestOrg(e), requestClient(e).ID, id)
	if err != nil {
		return notFoundOr(e, "delete a webhook", err)
	}
	return e.NoContent(http.StatusNoContent)
}

// webhookDeliveriesList pages through a subscription's deliveries, the
// newest first.
func webhookDeliveriesList(e *core.RequestEvent) error {
	id, err := webhookID(e)
	if err != nil {
		return err
	}
	errs := validation.Errors{}
	page, size := readPaging(e.Request.URL.Query(), errs)
	if len(errs) > 0 {
		return e.BadRequestError(firstMessage(errs), errs)
	}
	deliveries, err := store.New(e.App).Outbox().WebhookDeliveries(requestOrg(e), requestClient(e).ID, id, page, size)
	if err != nil {
		return notFoundOr(e, "list webhook deliveries", err)
	}
	return e.JSON(http.StatusOK, deliveries)
}

// webhooksTest queues a ping to one of the calling client's subscriptions.
func webhooksTest(e *core.RequestEvent) error {
	id, err := knownWebhook(e)
	if err != nil {
		return err
	}
	if err := readNoBody(e); err != nil {
		return err
	}
	d, err := store.New(e.App).Outbox().QueuePing(requestOrg(e), requestClient(e).ID, id)
	if err != nil {
		return notFoundOr(e, "queue a ping", err)
	}
	return e.JSON(http.StatusAccepted, d)
}

// webhookID reads the {id} of a webhook path: 404 unless a record id.
func webhookID(e *core.RequestEvent) (int64, error) {
	id, err := enrichment.ParseID(e.Request.PathValue("id"))
	if err != nil {
		return 0, e.NotFoundError("No such webhook.", nil)
	}
	return id, nil
}

// knownWebhook reads the {id} of a webhook path of a route that reads a
// body: 404 unless one of the client's webhooks, answered before the body
// is read, so a stalled body never holds it.
func knownWebhook(e *core.RequestEvent) (int64, error) {
	id, err := webhookID(e)
	if err != nil {
		return 0, err
	}
	if _, err := store.New(e.App).Outbox().Webhook(requestOrg(e), requestClient(e).ID, id); err != nil {
		return 0, notFoundOr(e, "find a webhook", err)
	}
	return id, nil
}

// notFoundOr answers a domain error (404 for a webhook that is not the
// client's) as apierror maps it, else a 500.
func notFoundOr(e *core.RequestEvent, doing string, err error) error {
	if apiErr, ok := apierror.From(err); ok {
		return apiErr
	}
	return internalError(e, doing, err)
}

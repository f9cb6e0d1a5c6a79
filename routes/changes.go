package routes

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var changeRoutes = []route{
	{Method: http.MethodGet, Path: "/changes", Scope: enrichment.ScopeRead, Handler: changesList},
}

// The feed's page size.
const (
	defaultChangesLimit = 500
	maxChangesLimit     = 1000
)

// changesList answers a page of the organization's change feed after the
// cursor (from the start of what is kept without one) and the cursor that
// follows it.
func changesList(e *core.RequestEvent) error {
	org := requestOrg(e)
	values := e.Request.URL.Query()
	errs := validation.Errors{}
	limit, err := queryInt(values, "limit", defaultChangesLimit)
	if err != nil || limit < 1 || limit > maxChangesLimit {
		errs["limit"] = validation.NewError("validation_out_of_range", "must be a whole number from 1 to 1000")
	}
	st := store.New(e.App)
	horizon, head, err := st.Catalog().ChangesBounds(org)
	if err != nil {
		return internalError(e, "read the change feed", err)
	}
	after := horizon
	if raw := values.Get("after"); raw != "" {
		c, ok := parseCursor(raw, org)
		switch {
		case !ok || c.seq > head: // note: past the organization's newest change, no cursor this feed issued
			errs["after"] = validation.NewError("validation_invalid_cursor", "must be a cursor this feed returned as next")
		case clock.Now(e.App).Sub(c.issued) > store.ChangesRetention || c.seq < horizon:
			return e.Error(http.StatusGone, "This cursor is older than the 30 days the change feed is kept: "+
				"export the catalog again (GET /api/enrichment/products) and follow the feed from its start.", nil)
		default:
			after = c.seq
		}
	}
	if len(errs) > 0 {
		return e.BadRequestError(firstMessage(errs), errs)
	}
	client := requestClient(e)
	page, err := st.Catalog().Changes(org, client.ID, client.Catalog, after, limit)
	if err != nil {
		return internalError(e, "read the change feed", err)
	}
	// note: the cursor's issue time is kept to the day, so an answer that did
	// not change keeps its tag (304) for a day, after which the client gets
	// a fresh cursor for its 30 days
	return jsonTagged(e, enrichment.ChangePage{Items: page.Items, HasMore: page.HasMore,
		Next: cursor{org: org, seq: page.Last, issued: clock.Now(e.App).UTC().Truncate(24 * time.Hour)}.String()})
}

// cursor is a position in one organization's feed: the sequence number of
// the last change read, and when the cursor was issued (a cursor older
// than the retention may have missed changes that were purged).
type cursor struct {
	org    enrichment.Org
	seq    int64
	issued time.Time
}

// String encodes the cursor; callers treat it as opaque.
func (c cursor) String() string {
	raw := fmt.Sprintf("c1:%s:%d:%d", c.org, c.seq, c.issued.UnixMilli())
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// parseCursor reads a cursor of org's feed.
func parseCursor(s string, org enrichment.Org) (cursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, false
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != 4 || parts[0] != "c1" || parts[1] != string(org) {
		return cursor{}, false
	}
	seq, err1 := strconv.ParseInt(parts[2], 10, 64)
	ms, err2 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || seq < 0 || ms < 0 {
		return cursor{}, false
	}
	return cursor{org: org, seq: seq, issued: time.UnixMilli(ms)}, true
}

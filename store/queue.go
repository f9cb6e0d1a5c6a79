package store

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// The reviewers' queue: the pending revisions of the organizations a
// reviewer may see, filtered and ordered as the reviewer chose, a page at a
// time, with the counts per confidence band. The partial index of pending
// revisions by client and product (schema.IdxRevisionsPendingProduct) holds
// the columns the queue sorts and counts on, so the order and the counts
// are taken from its entries alone (a few tens of thousands, sorted only as
// far as the page asked) and only the page's rows are read; a SKU filter
// reads the rows it checks.

// QueueSorts name the queue's orders: by confidence, ties in submission
// order, or by submission order.
var QueueSorts = []string{"confidence-desc", "confidence-asc", "age-desc", "age-asc"}

// BandAny and BandNone are the band filters beside the confidence bands:
// every band, and the revisions submitted without confidence.
const (
	BandAny  = "all"
	BandNone = enrichment.BandNone
)

// QueueQuery selects a page of the queue.
type QueueQuery struct {
	Client   int64   // 0: every client; else an API client's id
	Band     string  // BandAny, BandNone or one of enrichment.ConfidenceBands
	Template int64   // 0: any; else the products' attribute template id
	SKU      string  // "": any; else a part of the SKU, case-insensitive
	Exclude  []int64 // revisions left out (decided on the page, not yet sent)
	Sort     string  // one of QueueSorts
	Page     int     // zero-based
	PageSize int
	Revision int64 // 0: none; else the page that holds this revision is read instead of Page
	// Viewer is the reviewer asking (their record id; "" for a superuser):
	// revisions that another reviewer's live claim holds at Now are left
	// out unless WithClaimed.
	Viewer      string
	WithClaimed bool
	Now         time.Time
	Triage

	heldRows []int64 // the rowids of the revisions others hold, left out
}

// QueueItem is one revision of the queue, as the records API lists it with
// its product's and client's names expanded.
type QueueItem struct {
	ID               string        `json:"id"`
	SKU              string        `json:"sku"`
	Confidence       *int          `json:"confidence"` // null when submitted without
	ConfidenceBand   string        `json:"confidenceBand"`
	Created          string        `json:"created"`
	Status           string        `json:"status"`
	Proposed         types.JSONRaw `json:"proposed"`
	SupersededFields types.JSONRaw `json:"supersededFields"`
	APIClient        string        `json:"apiClient"`
	Product          string        `json:"product"`
	Expand           QueueExpand   `json:"expand"`
	// Rivals is how many pending revisions, from every client and this one
	// included, propose something for the same product.
	Rivals int `json:"rivals"`
	// Claim is the live claim on the revision, nil when nobody holds it.
	Claim *QueueClaim `json:"claim"`
}

// QueueClaim says who holds a queue item's revision, and whether that is
// the reviewer asking.
type QueueClaim struct {
	Reviewer  string `json:"reviewer"`
	Email     string `json:"email"`
	Name      string `json:"name"`
	ExpiresAt string `json:"expiresAt"`
	Mine      bool   `json:"mine"`
}

// QueueExpand holds the names of a queue item's product and client.
type QueueExpand struct {
	Product   *named `json:"product,omitempty"` // nil once the product is gone
	APIClient *named `json:"apiClient,omitempty"`
}

type named struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// AttributeTemplate is a queue item's product's template (none: empty,
	// left out), so that the page reads its options beside the revision.
	AttributeTemplate string `json:"attributeTemplate,omitempty"`
}

// Queue is a page of the queue with the counts of every band under the
// same filters (the band filter aside).
type Queue struct {
	enrichment.Page[QueueItem]
	Bands []BandCount `json:"bands"` // enrichment.ConfidenceBands' order, then BandNone
	// ReasonRequired: rejecting a revision of the queue needs a reason, as
	// an organization it covers requires one (ReasonRequired)
	ReasonRequired bool `json:"reasonRequired"`
}

// BandCount is how many revisions of the queue are in one band.
type BandCount struct {
	Band  string `json:"band"`
	Count int    `json:"count"`
}

// sortKey is one column of a queue order. Age is submission order: the
// rowid, which every index entry holds, where the submission time is in
// the row (revisions are stored as they are submitted).
type sortKey struct {
	column string
	desc   bool
}

var queueOrders = map[string][]sortKey{
	"confidence-desc": {{"confidence", true}, {"_rowid_", false}},
	"confidence-asc":  {{"confidence", false}, {"_rowid_", false}},
	"age-desc":        {{"_rowid_", false}},
	"age-asc":         {{"_rowid_", true}},
}

// orderBy is the ORDER BY list of an order.
func orderBy(keys []sortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = "[[" + k.column + "]]"
		if k.desc {
			parts[i] += " DESC"
		}
	}
	return strings.Join(parts, ", ")
}

// ahead is the condition of the rows an order puts before the row whose
// values of its keys are bound as {:k0}, {:k1}, …
func ahead(keys []sortKey) string {
	var terms []string
	for i, k := range keys {
		var term []string
		for j, prev := range keys[:i] {
			term = append(term, fmt.Sprintf("[[%s]] = {:k%d}", prev.column, j))
		}
		op := "<"
		if k.desc {
			op = ">"
		}
		term = append(term, fmt.Sprintf("[[%s]] %s {:k%d}", k.column, op, i))
		terms = append(terms, "("+strings.Join(term, " AND ")+")")
	}
	return "(" + strings.Join(terms, " OR ") + ")"
}

// queueWhere is the condition (SQL and parameters) of the pending
// revisions of orgs that match q, in band (BandAny for any band); the index
// holds every column it names but the SKU.
func queueWhere(orgs []enrichment.Org, q QueueQuery, band string) (string, dbx.Params) {
	// note: the literal status = 'pending' lets SQLite use the partial index
	where := []string{sqlparts.InList("organization", "orgs"), "[[status]] = 'pending'"}
	params := dbx.Params{"orgs": sqlparts.InValues(orgs)}
	if q.Client != 0 {
		where = append(where, "[[apiClient]] = {:client}")
		params["client"] = FormatID(q.Client)
	}
	switch band {
	case BandAny:
	case BandNone:
		where = append(where, "[[confidenceBand]] = ''")
	default:
		where = append(where, "[[confidenceBand]] = {:band}")
		params["band"] = band
	}
	if q.SKU != "" {
		where = append(where, `[[sku]] LIKE {:sku} ESCAPE '\'`)
		params["sku"] = "%" + likeEscaper.Replace(q.SKU) + "%"
	}
	if len(q.Exclude) > 0 {
		// note: by rowid, which the index holds, where the id is in the row
		where = append(where, `[[_rowid_]] NOT IN (SELECT x.[[_rowid_]] FROM {{`+schema.Revisions+`}} AS x WHERE x.`+sqlparts.InList("id", "exclude")+`)`)
		params["exclude"] = sqlparts.InValues(sqlparts.FormatIDs(q.Exclude))
	}
	if len(q.heldRows) > 0 {
		where = append(where, `[[_rowid_]] NOT IN (SELECT [[value]] FROM json_each({:held}))`)
		params["held"] = sqlparts.InValues(q.heldRows)
	}
	where = triageWhere(q.Triage, q.Now, where, params)
	if q.Template != 0 {
		where = append(where, `EXISTS (SELECT 1 FROM {{`+schema.Products+`}} AS p
			WHERE p.[[id]] = {{`+schema.Revisions+`}}.[[product]] AND p.[[attributeTemplate]] = {:template})`)
		params["template"] = FormatID(q.Template)
	}
	return strings.Join(where, " AND "), params
}

// fromQueue is the FROM clause of the queries that the queue's index serves.
const fromQueue = " FROM {{" + schema.Revisions + "}} INDEXED BY " + schema.IdxRevisionsPendingProduct + " WHERE "

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// ReviewQueue reads a page of the queue of orgs with its band counts.
func (s *Review) ReviewQueue(orgs []enrichment.Org, q QueueQuery) (Queue, error) {
	keys, ok := queueOrders[q.Sort]
	if !ok {
		return Queue{}, fmt.Errorf("queue order %q", q.Sort)
	}
	if !q.WithClaimed {
		var err error
		if q.heldRows, err = s.othersClaimedRows(orgs, q.Viewer, q.Now); err != nil {
			return Queue{}, err
		}
	}
	bands, err := s.queueBands(orgs, q)
	if err != nil {
		return Queue{}, err
	}
	total := bands[q.Band]
	counts := make([]BandCount, 0, len(enrichment.ConfidenceBands)+1)
	for _, band := range append(slices.Clone(enrichment.ConfidenceBands), BandNone) {
		counts = append(counts, BandCount{Band: band, Count: bands[band]})
	}

	if q.Revision != 0 {
		pos, err := s.queuePosition(orgs, q, keys)
		if err != nil {
			return Queue{}, err
		}
		if pos >= 0 {
			q.Page = pos / q.PageSize
		}
	}
	var rowIDs []int64
	if q.Page < (total+q.PageSize-1)/q.PageSize { // note: a page past the end is empty
		where, params := queueWhere(orgs, q, q.Band)
		params["limit"], params["offset"] = q.PageSize, q.Page*q.PageSize
		err := s.db().NewQuery("SELECT [[_rowid_]]" + fromQueue + where + " ORDER BY " + orderBy(keys) +
			" LIMIT {:limit} OFFSET {:offset}").Bind(params).Column(&rowIDs)
		if err != nil {
			return Queue{}, fmt.Errorf("list the queue: %w", err)
		}
	}
	items, err := s.queueItems(orgs, rowIDs, q.Exclude)
	if err != nil {
		return Queue{}, err
	}
	if err := s.claimItems(orgs, items, q.Viewer, q.Now); err != nil {
		return Queue{}, err
	}
	reason, err := s.ReasonRequired(orgs)
	if err != nil {
		return Queue{}, err
	}
	return Queue{Page: enrichment.NewPage(items, q.Page, q.PageSize, total), Bands: counts, ReasonRequired: reason}, nil
}

// queueBands counts the queue's revisions per band (BandNone for those
// without confidence) and in all (BandAny), under q's other filters.
//
// note: one sum per band in one pass over the index entries, not GROUP BY
// confidenceBand: the index is not in band order, so grouping sorted every
// entry first (at 20,000 pending, 8.6 of the route's 13.5 ms)
func (s *Review) queueBands(orgs []enrichment.Org, q QueueQuery) (map[string]int, error) {
	bands := append(slices.Clone(enrichment.ConfidenceBands), BandNone)
	sums := make([]string, len(bands))
	where, params := queueWhere(orgs, q, BandAny)
	for i, band := range bands {
		value := band
		if band == BandNone {
			value = "" // note: stored as '' (queueWhere)
		}
		params["b"+strconv.Itoa(i)] = value
		sums[i] = fmt.Sprintf("COALESCE(SUM([[confidenceBand]] = {:b%d}), 0)", i)
	}
	counts := make([]int, len(bands))
	scan := make([]any, len(bands))
	for i := range counts {
		scan[i] = &counts[i]
	}
	err := s.db().NewQuery("SELECT " + strings.Join(sums, ", ") + fromQueue + where).Bind(params).Row(scan...)
	if err != nil {
		return nil, fmt.Errorf("count the queue's bands: %w", err)
	}
	out := map[string]int{}
	for i, band := range bands {
		out[band] = counts[i]
		out[BandAny] += counts[i]
	}
	return out, nil
}

// queuePosition is where q.Revision is in the queue that q and keys make
// (0 for the first), or -1 when the queue does not hold it.
func (s *Review) queuePosition(orgs []enrichment.Org, q QueueQuery, keys []sortKey) (int, error) {
	var at struct {
		Confidence int   `db:"confidence"`
		RowID      int64 `db:"rowID"`
	}
	where, params := queueWhere(orgs, q, q.Band)
	params["revision"] = FormatID(q.Revision)
	err := s.db().NewQuery("SELECT [[confidence]], [[_rowid_]] AS [[rowID]] FROM {{" + schema.Revisions + "}} WHERE [[id]] = {:revision} AND " + where).
		Bind(params).One(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return -1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("find revision %d in the queue: %w", q.Revision, err)
	}
	values := map[string]any{"confidence": at.Confidence, "_rowid_": at.RowID}
	for i, k := range keys {
		params["k"+strconv.Itoa(i)] = values[k.column]
	}
	var n int
	err = s.db().NewQuery("SELECT COUNT(*)" + fromQueue + where + " AND " + ahead(keys)).Bind(params).Row(&n)
	if err != nil {
		return 0, fmt.Errorf("count the queue ahead of revision %d: %w", q.Revision, err)
	}
	return n, nil
}

// queueRow is a queue item as read.
type queueRow struct {
	RowID          int64          `db:"rowID"`
	ID             string         `db:"id"`
	SKU            string         `db:"sku"`
	Confidence     int            `db:"confidence"`
	ConfidenceBand string         `db:"confidenceBand"`
	Created        types.DateTime `db:"created"`
	Status         string         `db:"status"`
	Proposed       types.JSONRaw  `db:"proposed"`
	Superseded     types.JSONRaw  `db:"supersededFields"`
	APIClient      string         `db:"apiClient"`
	Product        string         `db:"product"`
	ProductName    *string        `db:"productName"`
	Template       string         `db:"template"`
	ClientName     string         `db:"clientName"`
}

// queueItems reads the revisions of orgs with the given rowids, in their
// order, with the number of pending revisions of each one's product (those
// of exclude left out).
func (s *Review) queueItems(orgs []enrichment.Org, rowIDs []int64, exclude []int64) ([]QueueItem, error) {
	if len(rowIDs) == 0 {
		return []QueueItem{}, nil
	}
	var rows []queueRow
	err := s.db().NewQuery(`SELECT r.[[_rowid_]] AS [[rowID]], r.[[id]], r.[[sku]], r.[[confidence]], r.[[confidenceBand]], r.[[created]], r.[[status]],
			r.[[proposed]], r.[[supersededFields]], r.[[apiClient]], r.[[product]],
			p.[[name]] AS [[productName]], COALESCE(p.[[attributeTemplate]], '') AS [[template]], COALESCE(c.[[name]], '') AS [[clientName]]
		FROM {{` + schema.Revisions + `}} AS r
		LEFT JOIN {{` + schema.Products + `}} AS p ON p.[[id]] = r.[[product]]
		LEFT JOIN {{` + schema.APIClients + `}} AS c ON c.[[id]] = r.[[apiClient]]
		WHERE r.` + sqlparts.InList("_rowid_", "rowIDs")).Bind(dbx.Params{"rowIDs": sqlparts.InValues(rowIDs)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read the queue's revisions: %w", err)
	}
	var products []string
	for _, r := range rows {
		if r.Product != "" {
			products = append(products, r.Product)
		}
	}
	rivals, err := s.pendingPerProduct(orgs, unique(products), exclude)
	if err != nil {
		return nil, err
	}
	sortInOrder(rows, rowIDs, func(r queueRow) int64 { return r.RowID })
	items := make([]QueueItem, 0, len(rows))
	for _, r := range rows {
		it := QueueItem{ID: r.ID, SKU: r.SKU, Confidence: enrichment.StatedConfidence(r.Confidence, r.ConfidenceBand), ConfidenceBand: r.ConfidenceBand,
			Created: apiTime(r.Created), Status: r.Status, Proposed: r.Proposed, SupersededFields: r.Superseded,
			APIClient: r.APIClient, Product: r.Product, Rivals: rivals[r.Product],
			Expand: QueueExpand{APIClient: &named{ID: r.APIClient, Name: r.ClientName}}}
		if r.ProductName != nil {
			it.Expand.Product = &named{ID: r.Product, Name: *r.ProductName, AttributeTemplate: r.Template}
		}
		items = append(items, it)
	}
	return items, nil
}

// pendingPerProduct counts the pending revisions of each of products of
// orgs, those of exclude left out.
func (s *Review) pendingPerProduct(orgs []enrichment.Org, products []string, exclude []int64) (map[string]int, error) {
	out := map[string]int{}
	if len(products) == 0 {
		return out, nil
	}
	var rows []struct {
		Product string `db:"product"`
		Count   int    `db:"n"`
	}
	err := s.db().NewQuery(`SELECT [[product]], COUNT(*) AS [[n]]
		FROM {{` + schema.Revisions + `}} INDEXED BY ` + schema.IdxRevisionsProduct + `
		WHERE ` + sqlparts.InList("product", "products") + ` AND [[status]] = 'pending' AND ` + sqlparts.InList("organization", "orgs") + `
		AND NOT ` + sqlparts.InList("id", "exclude") + `
		GROUP BY [[product]]`).
		Bind(dbx.Params{"products": sqlparts.InValues(products), "orgs": sqlparts.InValues(orgs), "exclude": sqlparts.InValues(sqlparts.FormatIDs(exclude))}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("count the pending revisions of the queue's products: %w", err)
	}
	for _, r := range rows {
		out[r.Product] = r.Count
	}
	return out, nil
}

// Package schema is the vocabulary shared by the migrations that create the
// database and the code that reads and writes it: collection, table,
// trigger and index names, and the numeric id pattern. It holds names only;
// the migrations hold the definitions, with literal values, so a released
// migration never changes when code does.
package schema

// Collections (their names are part of the service's contract: the
// dashboard and the records API show them).
const (
	Organizations      = "organizations"
	APIClients         = "api_clients"
	AttributeTemplates = "attribute_templates"
	AttributeOptions   = "attribute_options"
	Brands             = "brands"
	Products           = "products"
	Revisions          = "revisions"
	Reviewers          = "reviewers"
	Webhooks           = "webhooks"
	WebhookDeliveries  = "webhook_deliveries"
)

// Internal tables: plain SQLite tables, not collections, so neither the
// dashboard nor the records API shows them.
const (
	// SequenceTable holds the last number handed out per collection, so
	// numeric ids are never reused, even after the newest record is deleted.
	SequenceTable = "_enrichment_seq"
	// IdempotencyTable keeps, per API client and externalSubmissionId, the
	// hash of the first request and the response it got.
	IdempotencyTable = "_enrichment_idempotency"
	// GenerationsTable holds one counter per organization that moves with
	// every change which can stale a cached answer of that organization (see
	// GenerationTriggers).
	GenerationsTable = "_enrichment_generations"
	// RetiredKeysTable keeps the hashes of rotated-out API keys still in
	// their own grace period, other than the client's latest one (which is
	// previousKeyHash).
	RetiredKeysTable = "_enrichment_retired_keys"
	// ChangesTable is the change feed: one row per change of a product in
	// or out of its organization's export, in commit order (see
	// ChangeTriggers).
	ChangesTable = "_enrichment_changes"
	// ChangesHorizonTable holds the last sequence number purged from the
	// change feed: a cursor before it may have missed changes.
	ChangesHorizonTable = "_enrichment_changes_horizon"
	// MetricCountsTable counts each API client's revisions by state, band
	// and reason, over all time, per month and per day
	// (store/metric_counts.go).
	MetricCountsTable = "_enrichment_metric_counts"
	// ModelCountsTable holds the same counters per model name and version,
	// for the revisions submitted with a model (store/metric_counts.go).
	ModelCountsTable = "_enrichment_model_counts"
	// AcceptedValuesTable remembers, per product and field (per attribute
	// name for attributes), the value an accepted revision set and the value
	// the product had before, so that a catalog import can tell a stale feed
	// from a real change.
	AcceptedValuesTable = "_enrichment_accepted_values"
)

// Triggers of the catalog import's bookkeeping.
const (
	// ImportHashTrigger clears a product's importHash when any other writer
	// changes a column the import writes: the digest then no longer
	// describes the row, and the next import compares the row itself.
	ImportHashTrigger = "enrichment_products_import_hash"
	// AcceptedValuesCleanupTrigger forgets a deleted product's accepted values.
	AcceptedValuesCleanupTrigger = "enrichment_products_accepted_values_delete"
)

// MetricCountsOrgTrigger empties the metric counters with their organization.
const MetricCountsOrgTrigger = "enrichment_metric_counts_organization_delete"

// ModelCountsOrgTrigger empties the model counters with their organization.
const ModelCountsOrgTrigger = "enrichment_model_counts_organization_delete"

// ChangeTriggers write the change feed for product updates and deletions
// (and empty it with its organization). Inserts are written by the import
// and the products hook, as for the generations.
var ChangeTriggers = []string{
	"enrichment_changes_upsert",
	"enrichment_changes_remove",
	"enrichment_changes_delete",
	"enrichment_changes_organization_delete",
}

// GenerationTriggers keep GenerationsTable: every write that can change an
// organization's keys, its templates and options, its brands or which
// products its export holds, in any process, bumps that organization's
// counter. Product inserts are the exception: the import bumps once per
// import, and hooks bump for records created through PocketBase (a trigger
// per inserted row made imports markedly slower).
var GenerationTriggers = []string{
	"enrichment_generation_api_clients_insert",
	"enrichment_generation_api_clients_update",
	"enrichment_generation_api_clients_delete",
	"enrichment_generation_templates_insert",
	"enrichment_generation_templates_update",
	"enrichment_generation_templates_delete",
	"enrichment_generation_options_insert",
	"enrichment_generation_options_update",
	"enrichment_generation_options_delete",
	"enrichment_generation_products_update",
	"enrichment_generation_products_delete",
	"enrichment_generation_brands_insert",
	"enrichment_generation_brands_update",
	"enrichment_generation_brands_delete",
}

// Indexes that queries name (INDEXED BY) because the planner, with sampled
// statistics, would pick a worse one.
const (
	IdxProductsExport        = "idx_products_export"
	IdxProductsSKU           = "idx_products_sku"
	IdxProductsVariantMaster = "idx_products_variant_master"
	// an organization's products by slug (partial: slug != ''), for the
	// check of a slug another product has
	IdxProductsSlug = "idx_products_slug"
	// a revision's product (every status)
	IdxRevisionsProduct = "idx_revisions_product"
	// a client's pending revisions by product, with the confidence and band
	// the reviewers' queue sorts and counts on (partial: status = 'pending')
	IdxRevisionsPendingProduct = "idx_revisions_pending_product"
	// a client's decided revisions that name a model, with the model
	// (partial: accepted and rejected, with a model); replaced by
	// IdxRevisionsDecidedEdges
	IdxRevisionsDecidedModel = "idx_revisions_decided_model"
	// an organization's decided revisions by client, with their confidence
	// (partial: accepted and rejected)
	IdxRevisionsDecidedTrends = "idx_revisions_decided_trends"
	// a client's decided revisions by reviewedAt, with their decisionMask:
	// the per-field metrics of a window's edges (partial: accepted and
	// rejected); replaced by IdxRevisionsDecidedEdges
	IdxRevisionsDecidedFields = "idx_revisions_decided_fields"
	// a client's reverted revisions by reviewedAt, with what the metrics
	// count of them: a window's edges and a rollback's selection (partial:
	// status = 'reverted'); replaced by
	// IdxRevisionsDecidedEdges
	IdxRevisionsReverted = "idx_revisions_reverted"
	// a client's decided revisions by reviewedAt, with everything the
	// metrics count of them: status, band, reason, decisionMask and model
	// (partial: accepted, rejected and reverted)
	IdxRevisionsDecidedEdges = "idx_revisions_decided_edges"
	// deliveries waiting for an attempt, by subscription and when, and by
	// when alone (partial: status = 'pending')
	IdxWebhookDeliveriesDue  = "idx_webhook_deliveries_due"
	IdxWebhookDeliveriesNext = "idx_webhook_deliveries_next"
)

// NumericIDPattern is the record id of every collection whose id the API
// shows as a number: a decimal integer in 1 .. 2^53-1 (at most 16 digits).
const NumericIDPattern = `^[1-9][0-9]{0,15}$`

// Trust policies (migrations/1795275000_trust_policies.go).
const (
	// TrustPolicies is the collection of the organizations' trust policies.
	TrustPolicies = "trust_policies"
	// TrustCountsTable counts the revisions people decided per client,
	// product template, confidence, day of the decision, proposed fields
	// and fields applied without correction: the policies' measurement.
	TrustCountsTable = "_enrichment_trust_counts"
	// TrustCountsOrgTrigger forgets an organization's trust counters with it.
	TrustCountsOrgTrigger = "enrichment_trust_counts_org_delete"
	// IdxRevisionsAudit holds an organization's audited revisions by audit
	// state (partial: audit != ''): the audit queue.
	IdxRevisionsAudit = "idx_revisions_audit"
	// IdxRevisionsPolicyAudits holds a policy's closed audits by closing
	// time: the suspension rule's window.
	IdxRevisionsPolicyAudits = "idx_revisions_policy_audits"
	// IdxRevisionsPolicyDecided holds the revisions a policy decided by
	// decision time: its model versions' probation since it became active
	// (migrations/1795276700_trust_bounds.go).
	IdxRevisionsPolicyDecided = "idx_revisions_policy_decided"
)

package enrichment

// Webhook events a subscription can name.
const (
	EventRevisionAccepted   = "revision.accepted" // fully or partly
	EventRevisionRejected   = "revision.rejected"
	EventRevisionSuperseded = "revision.superseded"
	EventRevisionExpired    = "revision.expired"
	EventRevisionReverted   = "revision.reverted" // a rollback undid an acceptance
	EventPing               = "ping"              // sent on request, to test a subscription
)

// WebhookEvents lists every event, in the order they are documented.
var WebhookEvents = []string{EventRevisionAccepted, EventRevisionRejected, EventRevisionSuperseded, EventRevisionExpired, EventRevisionReverted, EventPing}

// RevisionEvent is the event of a revision reaching a final status.
func RevisionEvent(status string) string {
	return "revision." + status
}

// MaxWebhooksPerClient bounds one API client's subscriptions.
const MaxWebhooksPerClient = 10

// Delivery statuses: pending until an attempt succeeds (delivered) or the
// last retry fails (failed).
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// DeliveryStatuses lists every delivery status.
var DeliveryStatuses = []string{DeliveryPending, DeliveryDelivered, DeliveryFailed}

// Webhook is a subscription as its API client sees it, never with its secret.
type Webhook struct {
	ID        int64    `json:"id"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	Active    bool     `json:"active"`
	CreatedAt string   `json:"createdAt"`
}

// CreatedWebhook is a new subscription with its signing secret, which is
// shown this once.
type CreatedWebhook struct {
	Webhook
	Secret string `json:"secret"`
}

// Delivery is one event sent, or to be sent, to a subscription.
type Delivery struct {
	ID             int64   `json:"id"`
	MessageID      string  `json:"messageId"` // the webhook-id header of every attempt
	Event          string  `json:"event"`
	RevisionID     *int64  `json:"revisionId"` // nil for ping
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	LastStatusCode *int    `json:"lastStatusCode"` // nil before an answer
	LastError      *string `json:"lastError"`
	NextAttemptAt  *string `json:"nextAttemptAt"` // nil once delivered or failed
	CreatedAt      string  `json:"createdAt"`
	DeliveredAt    *string `json:"deliveredAt"`
}

// WebhookPayload is the body of a delivery.
type WebhookPayload struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      any    `json:"data"` // a RevisionItem, or {} for ping
}

// Changes of a product in the change feed.
const (
	ChangeUpsert = "upsert" // it became visible in the export, or changed
	ChangeRemove = "remove" // it left the export
)

// Change is one entry of an organization's change feed.
type Change struct {
	ProductID int64  `json:"productId"`
	SKU       string `json:"sku"`
	Change    string `json:"change"`
	At        string `json:"at"`
	// An upsert's product as it is now: its completeness and gaps
	// (completeness.go); absent on a removal.
	Completeness *int      `json:"completeness,omitzero"`
	Gaps         *[]string `json:"gaps,omitzero"`
}

// ChangePage is a page of the change feed; Next continues after it.
type ChangePage struct {
	Items   []Change `json:"items"`
	Next    string   `json:"next"`
	HasMore bool     `json:"hasMore"`
}

package store

// The store's queries are grouped by area, one type per area (the way a
// service per resource keeps each one's methods together): a caller asks
// the store for the area, st.Review().DecideSet(...), and a reader finds a
// method by its area. Every area embeds base, so it reaches the database,
// transactions and the other areas the same way.

// Review makes and lists reviewers' decisions: the review queue and its
// plans, claims, the decided list and rollbacks.
type Review struct{ base }

// Metrics reads and recounts acceptance metrics, their counters and trends.
type Metrics struct{ base }

// Outbox keeps webhooks, queues their deliveries and records attempts.
type Outbox struct{ base }

// Trust keeps trust counters, auto-accept policies and their audits.
type Trust struct{ base }

// Accounts keeps organizations, API clients and their keys.
type Accounts struct{ base }

// Proposals takes submissions: supersession, idempotency and the expiry of
// proposals nobody decided.
type Proposals struct{ base }

// Catalog reads and writes products and templates, accepted values, the
// export pages and the changes feed.
type Catalog struct{ base }

// Review is the store's decisions area.
func (s *base) Review() *Review { return &Review{*s} }

// Metrics is the store's metrics area.
func (s *base) Metrics() *Metrics { return &Metrics{*s} }

// Outbox is the store's webhooks area.
func (s *base) Outbox() *Outbox { return &Outbox{*s} }

// Trust is the store's trust area.
func (s *base) Trust() *Trust { return &Trust{*s} }

// Accounts is the store's organizations and API clients area.
func (s *base) Accounts() *Accounts { return &Accounts{*s} }

// Proposals is the store's submissions area.
func (s *base) Proposals() *Proposals { return &Proposals{*s} }

// Catalog is the store's products area.
func (s *base) Catalog() *Catalog { return &Catalog{*s} }

// area is any type of the store; the package's generic helpers (caches,
// lookups by SKU) take one, so every area calls them with itself.
type area interface{ shared() *base }

func (s *base) shared() *base { return s }

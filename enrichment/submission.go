package enrichment

// SubmissionBody is the body of POST /products/submissions. The route
// reads it as a stream, an item at a time (routes/submission_request.go);
// this type states its shape once for whatever describes the body in Go,
// the MCP tool propose's input schema first (agents/), and a test holds the
// two to the OpenAPI document.
type SubmissionBody struct {
	ExternalSubmissionID *string          `json:"externalSubmissionId,omitempty"`
	Model                *Model           `json:"model,omitempty"`
	Items                []SubmissionItem `json:"items"`
}

// SubmissionItem is one proposal of a submission: the product's SKU, what
// it proposes for the enrichable fields, and how sure and from what.
type SubmissionItem struct {
	SKU         string               `json:"sku"`
	Confidence  *int                 `json:"confidence,omitempty"`
	Name        *string              `json:"name,omitempty"`
	Slug        *string              `json:"slug,omitempty"`
	Description *string              `json:"description,omitempty"`
	Attributes  []SubmittedAttribute `json:"attributes,omitempty"`
	Files       []string             `json:"files,omitempty"`
	Model       *Model               `json:"model,omitempty"`
	Sources     []Source             `json:"sources,omitempty"`
}

// SubmittedAttribute is a proposed attribute, optionally linked to one of
// the product's template options.
type SubmittedAttribute struct {
	Attribute string             `json:"attribute"`
	Detail    string             `json:"detail"`
	Option    *SubmittedOptionID `json:"option,omitempty"`
}

// SubmittedOptionID names a template option by id; the other members, as
// the export shows an option, may come back with it and are ignored.
type SubmittedOptionID struct {
	OptionID      int64   `json:"optionId"`
	Unit          *string `json:"unit,omitempty"`
	Priority      *int    `json:"priority,omitempty"`
	DataType      *string `json:"dataType,omitempty"`
	ShowOnWebsite *bool   `json:"showOnWebsite,omitempty"`
}

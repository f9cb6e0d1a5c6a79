package enrichment

import (
	"slices"
	"strings"
)

// Single attributes in a decision: approvedFields, corrections and
// fieldReasons name one proposed attribute as "attributes.NAME", NAME
// exactly as proposed (docs/review.md).

// AttributePrefix starts a key that names one attribute.
const AttributePrefix = "attributes."

// AttributeKey is the key that names attribute name.
func AttributeKey(name string) string { return AttributePrefix + name }

// SplitKey tells what a key of approvedFields, corrections or fieldReasons
// names: a field (attribute ""), or one attribute (field "attributes").
func SplitKey(key string) (field, attribute string, isAttribute bool) {
	if name, ok := strings.CutPrefix(key, AttributePrefix); ok {
		return "attributes", name, true
	}
	return key, "", false
}

// AttributeNames lists the names of the proposed attributes, each once, in
// the order proposed.
func (f Fields) AttributeNames() []string {
	if f.Attributes == nil {
		return nil
	}
	var out []string
	for _, a := range *f.Attributes {
		if !slices.Contains(out, a.Attribute) {
			out = append(out, a.Attribute)
		}
	}
	return out
}

// PendingAttributes are the names of the proposed attributes that no newer
// proposal superseded, in the order proposed. "attributes" among the
// superseded fields supersedes every one (so revisions stored before
// attributes were superseded one by one keep their meaning).
func PendingAttributes(proposed Fields, superseded, supersededAttributes []string) []string {
	if slices.Contains(superseded, "attributes") {
		return nil
	}
	var out []string
	for _, name := range proposed.AttributeNames() {
		if !slices.Contains(supersededAttributes, name) {
			out = append(out, name)
		}
	}
	return out
}

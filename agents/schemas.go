package agents

import (
	"encoding/json"
	"encoding/json/jsontext"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools' schemas are inferred from the Go types of the routes' bodies
// and answers; then every property takes the description and the limits
// that the OpenAPI document gives it, the two walked together. A property
// that one of them has and the other lacks is a mismatch: the server still
// starts (that property goes undescribed), and a test holds them to none.

// apiPrefix is where the OpenAPI document's paths live (routes.Prefix).
const apiPrefix = "/api/enrichment"

// inference maps the types that encode themselves to their JSON's schema.
var inference = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	// {"name": "applied", ...}: each proposed field's outcome, in order
	reflect.TypeFor[enrichment.FieldOutcomes](): {Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"}},
	// a JSON value the routes pass through (corrections, reasons per field)
	reflect.TypeFor[jsontext.Value](): {},
}}

// builtTool is a tool with its schemas.
type builtTool struct {
	spec *mcp.Tool
	tool
}

// toolSchemas builds every tool's schemas from its types and the OpenAPI
// document, and lists where the two disagree.
func toolSchemas(openapi []byte) ([]builtTool, []string, error) {
	var doc openapiDoc
	if err := json.Unmarshal(openapi, &doc.root); err != nil {
		return nil, nil, fmt.Errorf("read the OpenAPI document: %w", err)
	}
	var built []builtTool
	var mismatches []string
	for _, t := range tools {
		in, err := jsonschema.ForType(t.in, inference)
		if err != nil {
			return nil, nil, fmt.Errorf("infer the input schema of %s: %w", t.name, err)
		}
		out, err := jsonschema.ForType(t.out, inference)
		if err != nil {
			return nil, nil, fmt.Errorf("infer the output schema of %s: %w", t.name, err)
		}
		if t.openItems != "" {
			// note: inferred from a struct, an item refuses other members
			in.Properties[t.openItems].Items.AdditionalProperties = nil
		}
		for _, s := range []struct {
			schema *jsonschema.Schema
			root   docRoot
			side   string
		}{{in, t.inDoc, "input"}, {out, t.outDoc, "output"}} {
			if s.root == nil { // a tool without arguments
				continue
			}
			n, err := s.root(&doc)
			if err != nil {
				return nil, nil, fmt.Errorf("the OpenAPI document's %s of %s: %w", s.side, t.name, err)
			}
			doc.describe(s.schema, n, t.name+" "+s.side, &mismatches)
		}
		annotations := &mcp.ToolAnnotations{Title: t.title, ReadOnlyHint: t.readOnly, OpenWorldHint: new(false)}
		if !t.readOnly {
			annotations.DestructiveHint = new(false) // it proposes; a person or a policy decides
		}
		built = append(built, builtTool{spec: &mcp.Tool{
			Name: t.name, Title: t.title, Description: t.description,
			InputSchema: in, OutputSchema: out, Annotations: annotations,
		}, tool: t})
	}
	slices.Sort(mismatches)
	return built, mismatches, nil
}

// node is a node of the OpenAPI document.
type node = map[string]any

// docRoot finds, in the OpenAPI document, the schema that describes one
// side of a tool.
type docRoot func(d *openapiDoc) (node, error)

type openapiDoc struct{ root node }

// at is the node at a path of member names.
func (d *openapiDoc) at(path ...string) (node, error) {
	n := d.root
	for i, name := range path {
		next, ok := n[name].(node)
		if !ok {
			return nil, fmt.Errorf("no %s", strings.Join(path[:i+1], "/"))
		}
		n = next
	}
	return n, nil
}

// resolve follows n's $ref, and takes the one alternative of an anyOf that
// is not null, keeping n's own description.
func (d *openapiDoc) resolve(n node) node {
	for range 8 { // note: the document's references are shallow; this bounds a cycle
		if ref, ok := n["$ref"].(string); ok {
			target, err := d.at(strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
			if err != nil {
				return n
			}
			n = withDescription(target, n)
			continue
		}
		if alts, ok := n["anyOf"].([]any); ok {
			for _, a := range alts {
				if an, ok := a.(node); ok && !isNull(an) {
					n = withDescription(an, n)
					break
				}
			}
			if _, still := n["anyOf"]; !still {
				continue
			}
		}
		return n
	}
	return n
}

func isNull(n node) bool {
	types, _ := n["type"].([]any)
	return len(types) == 1 && types[0] == "null"
}

// withDescription is target, described as from says when it says anything.
func withDescription(target, from node) node {
	desc, ok := from["description"]
	if !ok {
		return target
	}
	out := node{}
	for k, v := range target {
		out[k] = v
	}
	out["description"] = desc
	return out
}

// describe copies into s the description and limits of n and of each of its
// properties and items, noting the properties only one of them has.
func (d *openapiDoc) describe(s *jsonschema.Schema, n node, at string, mismatches *[]string) {
	n = d.resolve(n)
	if v, ok := n["description"].(string); ok && s.Description == "" {
		s.Description = v
	}
	for name, to := range map[string]**float64{"minimum": &s.Minimum, "maximum": &s.Maximum} {
		if v, ok := n[name].(float64); ok && *to == nil {
			*to = new(v)
		}
	}
	for name, to := range map[string]**int{"minLength": &s.MinLength, "maxLength": &s.MaxLength,
		"minItems": &s.MinItems, "maxItems": &s.MaxItems} {
		if v, ok := n[name].(float64); ok && *to == nil {
			*to = new(int(v))
		}
	}
	if v, ok := n["enum"].([]any); ok && s.Enum == nil && enumFits(s, v) {
		s.Enum = v
	}
	if s.Items != nil {
		if items, ok := n["items"].(node); ok {
			d.describe(s.Items, items, at+"[]", mismatches)
		}
	}
	if len(s.Properties) == 0 {
		return
	}
	props, _ := n["properties"].(node)
	for name, ps := range s.Properties {
		pn, ok := props[name].(node)
		if !ok {
			*mismatches = append(*mismatches, at+"."+name+": not in the OpenAPI document")
			continue
		}
		d.describe(ps, pn, at+"."+name, mismatches)
	}
	for name := range props {
		if _, ok := s.Properties[name]; !ok {
			*mismatches = append(*mismatches, at+"."+name+": only in the OpenAPI document")
		}
	}
}

// enumFits tells whether every value of a document's enum is of s's type: a
// query parameter's enum spells a boolean also as "true" or "1", which a
// tool's boolean argument does not take.
func enumFits(s *jsonschema.Schema, values []any) bool {
	for _, v := range values {
		var fits bool
		switch s.Type {
		case "boolean":
			_, fits = v.(bool)
		case "string":
			_, fits = v.(string)
		case "integer", "number":
			_, fits = v.(float64)
		default:
			fits = true
		}
		if !fits {
			return false
		}
	}
	return true
}

// schemaRef is the document's component schema name.
func schemaRef(name string) docRoot {
	return func(d *openapiDoc) (node, error) { return d.at("components", "schemas", name) }
}

// operationAnswer is the schema of an operation's 200 answer.
func operationAnswer(path, method string) docRoot {
	return func(d *openapiDoc) (node, error) {
		return d.at("paths", apiPrefix+path, method, "responses", "200", "content", "application/json", "schema")
	}
}

// operationParameters is an operation's query parameters as the properties
// of one object.
func operationParameters(path, method string) docRoot {
	return func(d *openapiDoc) (node, error) {
		op, err := d.at("paths", apiPrefix+path, method)
		if err != nil {
			return nil, err
		}
		props := node{}
		params, _ := op["parameters"].([]any)
		for _, p := range params {
			pn, ok := p.(node)
			if !ok {
				continue
			}
			pn = d.resolve(pn)
			name, _ := pn["name"].(string)
			schema, _ := pn["schema"].(node)
			if pn["in"] != "query" || name == "" || schema == nil {
				continue
			}
			props[name] = withDescription(schema, pn)
		}
		return node{"type": []any{"object"}, "properties": props}, nil
	}
}

// wrapped is an object whose one member, member, inner describes.
func wrapped(member string, inner docRoot) docRoot {
	return func(d *openapiDoc) (node, error) {
		n, err := inner(d)
		if err != nil {
			return nil, err
		}
		return node{"type": []any{"object"}, "properties": node{member: n}}, nil
	}
}

// merged is an object with the properties of both a and b.
func merged(a, b docRoot) docRoot {
	return func(d *openapiDoc) (node, error) {
		props := node{}
		for _, r := range []docRoot{a, b} {
			n, err := r(d)
			if err != nil {
				return nil, err
			}
			p, _ := d.resolve(n)["properties"].(node)
			for k, v := range p {
				props[k] = v
			}
		}
		return node{"type": []any{"object"}, "properties": props}, nil
	}
}

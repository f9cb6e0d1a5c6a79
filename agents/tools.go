package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/json/jsontext"
	"errors"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tool is one MCP tool: what it is called and says, the Go types its
// schemas are inferred from, where the OpenAPI document describes them, and
// the REST call its arguments make.
type tool struct {
	name, title, description string
	readOnly                 bool
	in, out                  reflect.Type
	inDoc, outDoc            docRoot
	// call turns the tool's arguments (and, for a tool that sets body, the
	// route's body) into the route's request.
	call func(args map[string]json.RawMessage, body []byte) (Call, error)
	// body, when set, names the one argument that is not part of the
	// route's body: the others are passed on as they came.
	body string
	// member, when set, is the member of the result under which the route's
	// answer goes: MCP results are objects, and some answers are arrays.
	member string
	// openItems, when set, names the array argument whose items may carry
	// members they do not define: the route lists those in ignoredFields.
	openItems string
}

// Tool names.
const (
	ToolGetTemplates = "get_templates"
	ToolFindProducts = "find_products"
	ToolListGaps     = "list_gaps"
	ToolPropose      = "propose"
	ToolGetFeedback  = "get_feedback"
)

// Inputs of the tools that call GET routes: the routes' query parameters as
// one type each (the OpenAPI document describes them; schemas.go checks that
// the two agree).
type (
	paging struct {
		Page     *int `json:"page,omitempty"`
		PageSize *int `json:"pageSize,omitempty"`
	}
	findProductsInput struct {
		SKUs          []string `json:"skus,omitempty"`
		Query         string   `json:"query,omitempty"`
		ModifiedSince string   `json:"modifiedSince,omitempty"`
		paging
	}
	listGapsInput struct {
		paging
		Template string `json:"template,omitempty"`
		Brand    string `json:"brand,omitempty"`
		Category string `json:"category,omitempty"`
		Slot     string `json:"slot,omitempty"`
	}
	getFeedbackInput struct {
		Since  string `json:"since,omitempty"`
		Status string `json:"status,omitempty"`
		SKU    string `json:"sku,omitempty"`
		paging
	}
	proposeInput struct {
		enrichment.SubmissionBody
		// note: described here, as the route's query parameter also takes "1" and "TRUE"
		DryRun bool `json:"dryRun,omitempty" jsonschema:"true: answer exactly what the batch would get, with every revisionId null, and store nothing; the externalSubmissionId is neither consulted nor recorded. false or absent: a real submission."`
	}
	templatesOutput struct {
		Templates []enrichment.Template `json:"templates"`
	}
	proposeOutput struct {
		Results []enrichment.SubmissionResult `json:"results"`
	}
)

// tools lists the server's tools, in the order of the vendor's loop.
var tools = []tool{{
	name:  ToolGetTemplates,
	title: "Attribute templates",
	description: "The organization's active attribute templates: for each kind of product, the attributes (options) it has, " +
		"with unit, data type and priority. Options shown on the website are the slots that count for a product's completeness. Takes no arguments.",
	readOnly: true,
	in:       reflect.TypeFor[struct{}](), out: reflect.TypeFor[templatesOutput](),
	outDoc: wrapped("templates", operationAnswer("/attribute-templates", "get")),
	call: func(args map[string]json.RawMessage, _ []byte) (Call, error) {
		_, err := query(args)
		return Call{Method: http.MethodGet, Path: "/attribute-templates"}, err
	},
	member: "templates",
}, {
	name:  ToolFindProducts,
	title: "Find products",
	description: "Products of the catalog this key sees, with their current data, completeness and gaps. " +
		"Either `skus` (up to 50 exact SKUs, one page) or `query` (text found in the SKU or the name, any case; paged by `page` and `pageSize`); " +
		"with neither, every active product by id, paged. A SKU that is not found is simply absent from the items.",
	readOnly: true,
	in:       reflect.TypeFor[findProductsInput](), out: reflect.TypeFor[enrichment.Page[enrichment.Product]](),
	inDoc:  merged(operationParameters("/products", "get"), schemaRef("SkuLookup")),
	outDoc: schemaRef("ProductPage"),
	call: func(args map[string]json.RawMessage, _ []byte) (Call, error) {
		names := argumentNames[findProductsInput]()
		for name := range args {
			if !slices.Contains(names, name) {
				return Call{}, unknownArgument(name, names)
			}
		}
		skus, ok := args["skus"]
		if !ok || string(skus) == "null" {
			q, err := query(args, slices.DeleteFunc(names, func(n string) bool { return n == "skus" })...)
			return Call{Method: http.MethodGet, Path: "/products", Query: q}, err
		}
		for name, raw := range args {
			if name != "skus" && string(bytes.TrimSpace(raw)) != "null" { // note: null is an argument not given
				return Call{}, badInput("Give skus alone, without query, modifiedSince, page or pageSize: skus answers one page of up to 50 products.")
			}
		}
		body, err := json.Marshal(map[string]json.RawMessage{"skus": skus})
		return Call{Method: http.MethodPost, Path: "/products/skus", Body: body}, err
	},
}, {
	name:  ToolListGaps,
	title: "List gaps",
	description: "The work list: active products of the catalog this key sees that miss something their template counts " +
		"(description, images, or an attribute shown on the website), most important gap first, then by id. " +
		"Each item names its gaps (`description`, `images`, `attributes.NAME`) and its completeness (0 to 100). Paged like the export.",
	readOnly: true,
	in:       reflect.TypeFor[listGapsInput](), out: reflect.TypeFor[enrichment.Page[enrichment.GapItem]](),
	inDoc:  operationParameters("/gaps", "get"),
	outDoc: schemaRef("GapPage"),
	call: func(args map[string]json.RawMessage, _ []byte) (Call, error) {
		q, err := query(args, argumentNames[listGapsInput]()...)
		return Call{Method: http.MethodGet, Path: "/gaps", Query: q}, err
	},
}, {
	name:  ToolPropose,
	title: "Propose",
	description: "Submit up to 1000 proposals, one per product SKU, as the submissions route does (scope catalog:submit). " +
		"Each becomes a pending revision that a reviewer or a trust policy decides; a newer proposal of yours for the same product supersedes the pending one. " +
		"Set `dryRun` to see the results (status, ignored fields, the checks' issues) without storing anything. " +
		"`externalSubmissionId` makes a retry safe: the same id with the same body answers the first results again. " +
		"Name the `model` (and version) that made the proposals, and give `sources` as evidence: both speed review and trust.",
	in: reflect.TypeFor[proposeInput](), out: reflect.TypeFor[proposeOutput](),
	inDoc:  merged(schemaRef("SubmissionRequest"), operationParameters("/products/submissions", "post")),
	outDoc: wrapped("results", operationAnswer("/products/submissions", "post")),
	call: func(args map[string]json.RawMessage, body []byte) (Call, error) {
		q := url.Values{}
		if raw, ok := args["dryRun"]; ok {
			var dry *bool
			if err := json.Unmarshal(raw, &dry); err != nil {
				return Call{}, badInput("Invalid dryRun: must be true or false.")
			}
			if dry != nil && *dry {
				q.Set("dryRun", "true")
			}
		}
		return Call{Method: http.MethodPost, Path: "/products/submissions", Query: q, Body: body}, nil
	},
	// note: the body is passed on as it came, without dryRun (read here only
	// when the arguments mention dryRun)
	body:      "dryRun",
	member:    "results",
	openItems: "items",
}, {
	name:  ToolGetFeedback,
	title: "Get feedback",
	description: "Your own revisions, by ascending id, with what became of each: status (pending, accepted, rejected, superseded, expired, reverted), " +
		"each proposed field's outcome (applied, not_applied, superseded, expired, overwritten), who decided (reviewer or policy), " +
		"the reviewer's reason, comment, corrections and reasons per field. " +
		"Poll with `since` (revisions submitted or closed after that time) to learn what was decided since your last look.",
	readOnly: true,
	in:       reflect.TypeFor[getFeedbackInput](), out: reflect.TypeFor[enrichment.Page[enrichment.RevisionItem]](),
	inDoc:  operationParameters("/revisions", "get"),
	outDoc: schemaRef("RevisionPage"),
	call: func(args map[string]json.RawMessage, _ []byte) (Call, error) {
		q, err := query(args, argumentNames[getFeedbackInput]()...)
		return Call{Method: http.MethodGet, Path: "/revisions", Query: q}, err
	},
}}

// argumentNames are the JSON names of T's fields, those of embedded
// structs in their place: the arguments a tool of input T takes.
func argumentNames[T any]() []string {
	var names []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for f := range t.Fields() {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				names = append(names, name)
			}
		}
	}
	walk(reflect.TypeFor[T]())
	return names
}

// badInput is arguments a tool cannot turn into a request; its text is
// the tool error's message, worded as the routes word theirs.
type badInput string

func (b badInput) Error() string { return string(b) }

// query turns a GET tool's arguments, each one of names, into the route's
// query parameters; null leaves one out.
func query(args map[string]json.RawMessage, names ...string) (url.Values, error) {
	q := url.Values{}
	for name, raw := range args {
		if !slices.Contains(names, name) {
			return nil, unknownArgument(name, names)
		}
		v, ok := scalar(raw)
		if !ok {
			return nil, badInput("Invalid " + name + ": must be a string or a number.")
		}
		if v != "" {
			q.Set(name, v)
		}
	}
	return q, nil
}

// unknownArgument refuses an argument a tool does not take, naming those it
// takes.
func unknownArgument(name string, takes []string) error {
	if len(takes) == 0 {
		return badInput("Unknown argument " + name + ": this tool takes none.")
	}
	return badInput("Unknown argument " + name + ": this tool takes " + strings.Join(takes, ", ") + ".")
}

// scalar is a JSON string's text or a number's literal ("" for null); ok is
// false for anything else. A number written with a fraction or an exponent
// whose value is whole (2.0, 1e2) is given as that integer, as JSON Schema
// counts it one (the tools' schemas say integer; the routes read digits).
func scalar(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "", false
	case string(raw) == "null":
		return "", true
	case raw[0] == '"':
		var s string
		return s, json.Unmarshal(raw, &s) == nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if !json.Valid(raw) {
			return "", false
		}
		return wholeNumber(string(raw)), true
	}
	return "", false
}

// maxExactWhole is the largest whole number a float64 holds exactly (2^53).
const maxExactWhole = 1 << 53

// wholeNumber is a valid JSON number literal as an integer's digits when
// it has a fraction or an exponent and its value is whole (and exact in a
// float64); otherwise the literal as it is.
func wholeNumber(literal string) string {
	if !strings.ContainsAny(literal, ".eE") {
		return literal
	}
	f, err := strconv.ParseFloat(literal, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxExactWhole {
		return literal
	}
	return strconv.FormatInt(int64(f), 10)
}

// handler runs the tool: its arguments become the route's request, the
// route's answer its result.
func (t tool) handler(call Caller) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		client, ok := clientOf(req)
		if !ok {
			return nil, errors.New("no authenticated client") // note: ServeClient always sets one
		}
		args, body, err := t.arguments(req.Params.Arguments)
		if err != nil {
			return refusal(err.Error(), nil), nil
		}
		c, err := t.call(args, body)
		if err != nil {
			return refusal(err.Error(), nil), nil
		}
		answer := call(ctx, client, c)
		if answer.Status >= http.StatusBadRequest {
			var e struct {
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(answer.Body, &e); err != nil || e.Message == "" {
				e.Message = http.StatusText(answer.Status)
			}
			return refusal(e.Message, e.Data), nil
		}
		structured := json.RawMessage(answer.Body)
		if t.member != "" {
			structured = slices.Concat([]byte(`{"`+t.member+`":`), answer.Body, []byte(`}`))
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(answer.Body)}},
			StructuredContent: structured,
		}, nil
	}
}

// arguments are a call's arguments by name, and, for a tool that sets body,
// the object of all the others as they came: the route's body.
func (t tool) arguments(raw json.RawMessage) (map[string]json.RawMessage, []byte, error) {
	args := map[string]json.RawMessage{}
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	notObject := badInput("The arguments must be a JSON object.")
	if t.body == "" {
		if json.Unmarshal(raw, &args) != nil {
			return nil, nil, notObject
		}
		return args, nil, nil
	}
	if raw[0] != '{' {
		return nil, nil, notObject
	}
	if !bytes.Contains(raw, []byte(`"`+t.body+`"`)) && !bytes.Contains(raw, []byte(`\u`)) {
		// note: the usual case, and the SDK has checked that raw is JSON:
		// passed on without another reading of a batch of up to 16 MiB.
		// A \u escape may spell the name ("dry\u0052un"), so its arguments
		// are read member by member
		return args, raw, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, nil, notObject
	}
	body := make([]byte, 0, len(raw))
	body = append(body, '{')
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, nil, notObject
		}
		name := tok.String() // note: before the next read voids tok
		value, err := dec.ReadValue()
		if err != nil {
			return nil, nil, notObject
		}
		if name == t.body {
			args[name] = bytes.Clone(value)
			continue
		}
		if len(body) > 1 {
			body = append(body, ',')
		}
		if body, err = jsontext.AppendQuote(body, name); err != nil {
			return nil, nil, notObject
		}
		body = append(append(body, ':'), value...)
	}
	return args, append(body, '}'), nil
}

// refusal is a tool error: the route's message, then its details (which
// fields were at fault, for instance) when it gave any.
func refusal(message string, data json.RawMessage) *mcp.CallToolResult {
	content := []mcp.Content{&mcp.TextContent{Text: message}}
	if d := bytes.TrimSpace(data); len(d) > 0 && string(d) != "{}" && string(d) != "null" {
		content = append(content, &mcp.TextContent{Text: string(d)})
	}
	return &mcp.CallToolResult{IsError: true, Content: content}
}

// clientOf is the client the request's session acts for.
func clientOf(req *mcp.CallToolRequest) (enrichment.Client, bool) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return enrichment.Client{}, false
	}
	c, ok := req.Extra.TokenInfo.Extra[clientExtra].(enrichment.Client)
	return c, ok
}

package enrichment

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"slices"
	"strings"
)

// Corrections and reasons per field: an accepting decision may apply a
// reviewer's value instead of the proposed one, and any decision may say
// why each field or attribute it leaves out is not applied
// (docs/review.md).

// Correction is one corrected value, as applied.
type Correction struct {
	Key   string   // a field, or "attributes.NAME"
	Text  string   // the value, for every key but files
	Files []string // the value, for files
}

// Corrections are a decision's corrections in API order (fields as
// EnrichableFields lists them, attributes in the order proposed). They
// encode as one JSON object: {"name": "…", "attributes.Color": "Navy",
// "files": ["…"]}.
type Corrections []Correction

// MarshalJSONTo writes the corrections as one JSON object.
func (c Corrections) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for _, x := range c {
		if err := enc.WriteToken(jsontext.String(x.Key)); err != nil {
			return err
		}
		var err error
		if x.Key == "files" {
			err = json.MarshalEncode(enc, x.Files)
		} else {
			err = enc.WriteToken(jsontext.String(x.Text))
		}
		if err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// Keys lists the corrected keys, in order.
func (c Corrections) Keys() []string {
	out := make([]string, len(c))
	for i, x := range c {
		out[i] = x.Key
	}
	return out
}

// ParseObject reads a decision's JSON object field (corrections,
// fieldReasons) as stored on the record: nil when absent or null, else its
// members; anything but an object is a broken rule naming field.
func ParseObject(field string, raw []byte) (map[string]jsontext.Value, error) {
	switch strings.TrimSpace(string(raw)) {
	case "", "null":
		return nil, nil
	}
	var members map[string]jsontext.Value
	if jsontext.Value(raw).Kind() != '{' || json.Unmarshal(raw, &members) != nil {
		return nil, Invalid(field, "validation_not_object",
			fmt.Sprintf("%s must be a JSON object keyed by field or \"attributes.NAME\".", field), "Must be an object.")
	}
	if members == nil {
		members = map[string]jsontext.Value{}
	}
	return members, nil
}

// sortedKeys lists an object's keys in a fixed order, so that the first
// broken rule reported does not depend on map order.
func sortedKeys(m map[string]jsontext.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkCorrectionKey refuses a correction's key that names no enrichable
// field, an attribute not proposed, all attributes at once, or something
// the decision does not apply.
func checkCorrectionKey(key string, proposed Fields, applied *Applied) error {
	refuse := func(rule, message, detail string) error { return Invalid("corrections", rule, message, detail) }
	field, attr, one := SplitKey(key)
	switch {
	case !slices.Contains(EnrichableFields, field):
		return refuse("validation_unknown_field", fmt.Sprintf("Correction %q names no enrichable field.", key),
			fmt.Sprintf("%q is not a field.", key))
	case one && !slices.Contains(proposed.AttributeNames(), attr):
		return refuse("validation_not_proposed", fmt.Sprintf("Correction %q names an attribute that was not proposed.", key),
			fmt.Sprintf("%q was not proposed.", key))
	case field == "attributes" && !one:
		return refuse("validation_correct_one_attribute",
			"Correct attributes one by one: \"attributes.NAME\" with the corrected detail.", fmt.Sprintf("%q is not one attribute.", key))
	case one && !slices.Contains(applied.Attributes, attr), !one && !slices.Contains(applied.Fields, field):
		return refuse("validation_correction_not_applied",
			fmt.Sprintf("Correction %q is of something this decision does not apply; only an applied field or attribute can be corrected.", key),
			fmt.Sprintf("%q is not applied.", key))
	}
	return nil
}

// correct checks the corrections against what the decision applies, and
// each value as a submitted one is checked (options: the product's template
// options), and puts the corrected values, normalized as a submission's
// are, in place of the proposed ones in applied.
func correct(proposed Fields, options []CheckOption, applied *Applied, corrections map[string]jsontext.Value) error {
	if len(corrections) == 0 {
		return nil
	}
	byKey := map[string]Correction{}
	for _, key := range sortedKeys(corrections) {
		field, attr, _ := SplitKey(key)
		if err := checkCorrectionKey(key, proposed, applied); err != nil {
			return err
		}
		c, err := correctedValue(key, field, corrections[key])
		if err != nil {
			return err
		}
		if c, err = checkCorrection(c, field, attr, options); err != nil {
			return err
		}
		byKey[key] = c
	}
	for _, key := range slices.Concat([]string{"name", "slug", "description"}, attributeKeys(applied.Attributes), []string{"files"}) {
		c, ok := byKey[key]
		if !ok {
			continue
		}
		applied.Corrections = append(applied.Corrections, c)
		v := &applied.Values
		switch field, attr, _ := SplitKey(key); field {
		case "name":
			v.Name = &c.Text
		case "slug":
			v.Slug = &c.Text
		case "description":
			v.Description = &c.Text
		case "files":
			v.Files = &c.Files
		case "attributes":
			attrs := slices.Clone(*v.Attributes)
			for i := range attrs {
				if attrs[i].Attribute == attr {
					attrs[i].Detail = c.Text
				}
			}
			v.Attributes = &attrs
		}
	}
	return nil
}

// attributeKeys are the keys naming each attribute.
func attributeKeys(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = AttributeKey(n)
	}
	return out
}

// TextLimit is how many characters a product's text field holds.
func TextLimit(field string) int {
	if field == "description" {
		return MaxDescriptionLength
	}
	return MaxProductTextLength
}

// correctedValue reads one corrected value and checks it against the
// storage rules a submitted value must meet.
func correctedValue(key, field string, raw jsontext.Value) (Correction, error) {
	bad := func(message string) (Correction, error) {
		return Correction{}, Invalid("corrections", "validation_invalid_correction",
			fmt.Sprintf("Correction %q %s.", key, message), fmt.Sprintf("%q %s.", key, message))
	}
	if field == "files" {
		var files []string
		if raw.Kind() != '[' || json.Unmarshal(raw, &files) != nil {
			return bad("must be a list of strings")
		}
		if len(files) == 0 {
			return bad("must list at least one file")
		}
		for _, f := range files {
			if !StorableEntry(f) {
				return bad("has a file the product cannot store (blank, or with control characters)")
			}
		}
		if b, _ := json.Marshal(files); len(b) > MaxJSONFieldSize {
			return bad(fmt.Sprintf("is longer than the product's files hold (%d bytes of JSON)", MaxJSONFieldSize))
		}
		return Correction{Key: key, Files: files}, nil
	}
	var s string
	if raw.Kind() != '"' || json.Unmarshal(raw, &s) != nil {
		return bad("must be a string")
	}
	switch {
	case field == "attributes" && !StorableEntry(s):
		return bad("is a detail the product cannot store (blank, or with control characters)")
	case field != "attributes" && !StorableText(s, TextLimit(field)):
		return bad(fmt.Sprintf("is a value the product cannot store (blank, longer than %d characters, or with control characters)", TextLimit(field)))
	}
	return Correction{Key: key, Text: s}, nil
}

// checkCorrection applies the submission's checks to a corrected value: a
// slug's pattern, and an attribute's value as its option's data type wants
// it (a NUMBER without its unit, a BOOLEAN as true or false). A value a
// submission would drop is refused; one it would normalize is normalized.
func checkCorrection(c Correction, field, attr string, options []CheckOption) (Correction, error) {
	bad := func(message string) (Correction, error) {
		return Correction{}, Invalid("corrections", "validation_invalid_correction",
			fmt.Sprintf("Correction %q %s.", c.Key, message), fmt.Sprintf("%q %s.", c.Key, message))
	}
	switch field {
	case "slug":
		if !ValidSlug(c.Text) {
			return bad("is not a slug: lowercase letters and digits in groups joined by single hyphens")
		}
	case "attributes":
		option, ok := matchOption(attr, options)
		if !ok {
			break
		}
		switch option.DataType {
		case DataTypeNumber:
			number, code := CheckNumber(c.Text, option.Unit)
			if code == IssueNotANumber {
				if option.Unit != "" {
					return bad(fmt.Sprintf("is not a decimal number, alone or followed by a space and %q", option.Unit))
				}
				return bad("is not a decimal number")
			}
			c.Text = number
		case DataTypeBoolean:
			value, code := CheckBoolean(c.Text)
			if code == IssueNotABoolean {
				return bad("is not a boolean (true, false, yes, no, 1 or 0)")
			}
			c.Text = value
		}
	}
	return c, nil
}

// checkFieldReasons checks a decision's reasons per field: each key a
// proposed field or attribute that the decision does not apply, each value
// one of Reasons.
func checkFieldReasons(proposed Fields, applied Applied, reasons map[string]jsontext.Value) error {
	for _, key := range sortedKeys(reasons) {
		field, attr, one := SplitKey(key)
		var reason string
		switch {
		case one && !slices.Contains(proposed.AttributeNames(), attr), !one && !proposed.Has(field):
			return Invalid("fieldReasons", "validation_not_proposed",
				fmt.Sprintf("fieldReasons names %q, which was not proposed.", key), fmt.Sprintf("%q was not proposed.", key))
		case one && slices.Contains(applied.Attributes, attr),
			!one && field != "attributes" && slices.Contains(applied.Fields, field),
			!one && field == "attributes" && len(applied.Attributes) > 0:
			return Invalid("fieldReasons", "validation_reason_not_allowed",
				fmt.Sprintf("fieldReasons names %q, which this decision applies; a reason is only for what is not applied.", key),
				fmt.Sprintf("%q is applied.", key))
		case reasons[key].Kind() != '"' || json.Unmarshal(reasons[key], &reason) != nil || !slices.Contains(Reasons, reason):
			return Invalid("fieldReasons", "validation_invalid_reason",
				fmt.Sprintf("The reason for %q must be one of %s.", key, strings.Join(Reasons, ", ")),
				"Must be one of "+strings.Join(Reasons, ", ")+".")
		}
	}
	return nil
}

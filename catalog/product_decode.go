package catalog

import (
	"bytes"
	"encoding/json/jsontext"
)

// decodeProduct decodes one product of the file into p, for JSON whose
// syntax reading has checked already (well formed, valid UTF-8, no
// duplicate names). It understands the shapes a good product has, exactly
// as json.Unmarshal would decode them, and reports false on anything else
// (a value of another type, an unexpected null), which the caller then
// hands to json.Unmarshal, for the same result or its error.
//
// note: it exists for speed: json.Unmarshal (reflection, a name lookup and
// a second syntax check per member) was a third of a re-import's CPU time,
// and this decoder needs a fraction of it. FuzzDecodeProduct holds it to
// json.Unmarshal's results.
func decodeProduct(raw []byte, p *Product) bool {
	s := scanner{b: raw}
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "sku":
			return s.text(&p.SKU)
		case "externalId":
			return s.text(&p.ExternalID)
		case "gtin":
			return s.text(&p.GTIN)
		case "name":
			return s.text(&p.Name)
		case "slug":
			return s.text(&p.Slug)
		case "description":
			return s.text(&p.Description)
		case "active":
			return s.flag(&p.Active)
		case "attributeTemplate":
			return s.text(&p.AttributeTemplate)
		case "attributes":
			return s.attributes(&p.Attributes)
		case "brand":
			return s.brand(&p.Brand)
		case "categories":
			return s.texts(&p.Categories)
		case "images":
			return s.texts(&p.Images)
		case "files":
			return s.texts(&p.Files)
		case "variantMaster":
			return s.text(&p.VariantMaster)
		case "variantAttributes":
			if s.null() {
				p.VariantAttributes = nil
				return true
			}
			var v []string
			p.VariantAttributes = &v
			return s.texts(&v)
		}
		return s.skip()
	})
	return ok && s.end()
}

// scanner walks JSON known to be valid.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (s *scanner) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) end() bool {
	return s.peek() == 0
}

// null consumes a null.
func (s *scanner) null() bool {
	if s.peek() == 'n' {
		s.i += len("null")
		return true
	}
	return false
}

// object calls member for each member's name, with the scanner at its
// value, which member must consume. note: the name is the input's own
// bytes when it has no escapes: a switch on string(name) allocates nothing.
func (s *scanner) object(member func(name []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	for first := true; ; first = false {
		switch s.peek() {
		case '}':
			s.i++
			return true
		case ',':
			if first {
				return false
			}
			s.i++
		}
		s.space()
		start := s.i
		escaped, ok := s.skipString()
		end := s.i
		if !ok || s.peek() != ':' {
			return false
		}
		name := s.b[start+1 : end-1]
		if escaped {
			unquoted, err := jsontext.AppendUnquote(nil, s.b[start:end])
			if err != nil {
				return false
			}
			name = unquoted
		}
		s.i++ // the colon
		if !member(name) {
			return false
		}
	}
}

// text reads a string into v; null leaves v as it is, as json.Unmarshal does.
func (s *scanner) text(v *string) bool {
	if s.null() {
		return true
	}
	s.space()
	start := s.i
	escaped, ok := s.skipString()
	switch {
	case !ok:
		return false
	case !escaped:
		*v = string(s.b[start+1 : s.i-1])
		return true
	}
	out, err := jsontext.AppendUnquote(nil, s.b[start:s.i])
	*v = string(out)
	return err == nil
}

// skipString moves past a string, reporting whether it has escapes.
func (s *scanner) skipString() (escaped, ok bool) {
	if s.peek() != '"' {
		return false, false
	}
	s.i++
	for {
		end := bytes.IndexByte(s.b[s.i:], '"')
		if end < 0 {
			return escaped, false
		}
		slash := bytes.IndexByte(s.b[s.i:s.i+end], '\\')
		if slash < 0 {
			s.i += end + 1
			return escaped, true
		}
		escaped = true
		s.i += slash + 2 // the backslash and the character it escapes
	}
}

// texts reads an array of strings, or null for none.
func (s *scanner) texts(v *[]string) bool {
	if s.null() {
		*v = nil
		return true
	}
	out := make([]string, 0, 4)
	ok := s.array(func() bool {
		if s.peek() == 'n' { // json.Unmarshal keeps a null element as ""; rare enough to leave to it
			return false
		}
		var t string
		if !s.text(&t) {
			return false
		}
		out = append(out, t)
		return true
	})
	*v = out
	return ok
}

// array calls element for each element, with the scanner at it.
func (s *scanner) array(element func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	for first := true; ; first = false {
		switch s.peek() {
		case ']':
			s.i++
			return true
		case ',':
			if first {
				return false
			}
			s.i++
		}
		if !element() {
			return false
		}
	}
}

// flag reads an optional boolean.
func (s *scanner) flag(v **bool) bool {
	switch s.peek() {
	case 'n':
		s.i += len("null")
		*v = nil
	case 't':
		s.i += len("true")
		t := true
		*v = &t
	case 'f':
		s.i += len("false")
		f := false
		*v = &f
	default:
		return false
	}
	return true
}

func (s *scanner) attributes(v *[]Attribute) bool {
	if s.null() {
		*v = nil
		return true
	}
	out := make([]Attribute, 0, 16)
	ok := s.array(func() bool {
		var a Attribute
		ok := s.object(func(name []byte) bool {
			switch string(name) {
			case "attribute":
				return s.text(&a.Attribute)
			case "detail":
				return s.text(&a.Detail)
			}
			return s.skip()
		})
		out = append(out, a)
		return ok
	})
	*v = out
	return ok
}

func (s *scanner) brand(v **Brand) bool {
	if s.null() {
		*v = nil
		return true
	}
	b := &Brand{}
	*v = b
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "name":
			return s.text(&b.Name)
		case "website":
			return s.optionalText(&b.Website)
		case "slug":
			return s.optionalText(&b.Slug)
		}
		return s.skip()
	})
}

func (s *scanner) optionalText(v **string) bool {
	if s.null() {
		*v = nil
		return true
	}
	var t string
	*v = &t
	return s.text(&t)
}

// skip consumes a value of a member the product does not know.
func (s *scanner) skip() bool {
	switch s.peek() {
	case '"':
		_, ok := s.skipString()
		return ok
	case '{', '[':
		for depth := 0; s.i < len(s.b); {
			switch s.b[s.i] {
			case '"':
				if _, ok := s.skipString(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	case 0:
		return false
	}
	for s.i < len(s.b) { // a number, true, false or null
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r', ',', '}', ']':
			return true
		}
		s.i++
	}
	return true
}

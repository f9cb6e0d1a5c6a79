package catalog

import (
	"bytes"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a catalog file that cannot be imported: the item at fault (Path,
// such as "products[17].variantMaster"), where it is in the file (Line and
// Column, 1-based, 0 when unknown) and what is wrong.
type Error struct {
	Path   string
	Line   int
	Column int
	Msg    string
}

// Error reads "products[17].sku: required (line 19)" for a bad item and
// "line 12, column 5: invalid character ..." for malformed JSON.
func (e *Error) Error() string {
	var where string
	switch {
	case e.Line > 0 && e.Column > 0:
		where = fmt.Sprintf("line %d, column %d", e.Line, e.Column)
	case e.Line > 0:
		where = fmt.Sprintf("line %d", e.Line)
	}
	switch {
	case e.Path != "" && where != "":
		return e.Path + ": " + e.Msg + " (" + where + ")"
	case e.Path != "":
		return e.Path + ": " + e.Msg
	case where != "":
		return where + ": " + e.Msg
	default:
		return e.Msg
	}
}

// jsonError turns a decoding error into an *Error located in the file;
// other errors (reading the input) are wrapped as they are.
func (lr *lineReader) jsonError(err error) error {
	if err == nil {
		return nil
	}
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		e := lr.errorAt(syn.ByteOffset, "", syntaxMessage(syn))
		if p := pathOf(syn.JSONPointer); p != "" {
			e.Msg += " in " + p
		}
		return e
	case errors.As(err, &sem):
		return lr.errorAt(sem.ByteOffset, pathOf(sem.JSONPointer), typeMessage(sem))
	default:
		return fmt.Errorf("read catalog: %w", err)
	}
}

func (lr *lineReader) errorAt(off int64, path, msg string) *Error {
	line, col := lr.position(off)
	return &Error{Path: path, Line: line, Column: col, Msg: msg}
}

func syntaxMessage(e *jsontext.SyntacticError) string {
	if errors.Is(e.Err, io.ErrUnexpectedEOF) {
		return "unexpected end of file"
	}
	if e.Err == nil {
		return strings.TrimPrefix(e.Error(), "jsontext: ")
	}
	return e.Err.Error()
}

// typeMessage says what was expected and what was found, e.g. "want a
// boolean, got a string".
func typeMessage(e *json.SemanticError) string {
	want, got := goKindName(e.GoType), jsonKindName(e.JSONKind)
	switch {
	case want != "" && got != "" && e.Err != nil:
		return fmt.Sprintf("want %s, got %s: %v", want, got, e.Err)
	case want != "" && got != "":
		return fmt.Sprintf("want %s, got %s", want, got)
	case e.Err != nil:
		return e.Err.Error()
	default:
		return strings.TrimPrefix(e.Error(), "json: ")
	}
}

func goKindName(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return ""
}

func jsonKindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return ""
}

// maxPathTokens bounds the levels an error's path names: the first and
// the last halves of them.
const maxPathTokens = 16

// pathOf renders a JSON pointer as the path users read:
// "/products/17/attributes/2" is "products[17].attributes[2]".
func pathOf(p jsontext.Pointer) string {
	tokens := slices.Collect(p.Tokens())
	if len(tokens) > maxPathTokens { // note: a file nested thousands deep made a message of tens of KB
		skipped := len(tokens) - maxPathTokens
		tokens = slices.Concat(tokens[:maxPathTokens/2], []string{fmt.Sprintf("…%d levels…", skipped)}, tokens[len(tokens)-maxPathTokens/2:])
	}
	var b strings.Builder
	for _, tok := range tokens {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// lineReader counts the bytes read and keeps the most recent ones, so that
// a decoder's byte offset can be turned into a line and column without
// holding the file.
type lineReader struct {
	r        io.Reader
	n        int64  // bytes read so far
	win      []byte // recent input, starting at offset base
	base     int64
	baseLine int // newlines before base
	// a cursor makes the increasing offsets of successive products cheap:
	// every byte is looked at once, however long the lines
	curOff  int64
	curLine int
	curCol  int // characters between the last newline and curOff; -1 unknown
}

// keepBytes of past input suffice: decoding errors point into the value
// being decoded, which the decoder still buffers.
const keepBytes = 4 << 20

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r}
}

// Read implements io.Reader.
func (lr *lineReader) Read(p []byte) (int, error) {
	n, err := lr.r.Read(p)
	if n > 0 {
		lr.win = append(lr.win, p[:n]...)
		lr.n += int64(n)
		if len(lr.win) > 2*keepBytes+n {
			drop := len(lr.win) - keepBytes - n // never the chunk just read
			lr.baseLine += bytes.Count(lr.win[:drop], []byte{'\n'})
			lr.base += int64(drop)
			lr.win = append(lr.win[:0], lr.win[drop:]...)
		}
	}
	return n, err
}

// lineAt returns the 1-based line of offset off, 0 when it is too far back.
func (lr *lineReader) lineAt(off int64) int {
	off = min(off, lr.n)
	if off < lr.base {
		return 0
	}
	if off < lr.curOff || lr.curOff < lr.base {
		lr.curOff, lr.curLine, lr.curCol = lr.base, lr.baseLine, -1
		if lr.base == 0 {
			lr.curCol = 0
		}
	}
	span := lr.win[lr.curOff-lr.base : off-lr.base]
	if n := bytes.Count(span, []byte{'\n'}); n > 0 {
		lr.curLine += n
		lr.curCol = utf8.RuneCount(span[bytes.LastIndexByte(span, '\n')+1:])
	} else if lr.curCol >= 0 {
		lr.curCol += utf8.RuneCount(span)
	}
	lr.curOff = off
	return lr.curLine + 1
}

// position returns the line and column (in characters) of off; 0 for what
// is unknown.
func (lr *lineReader) position(off int64) (line, col int) {
	line = lr.lineAt(off)
	if line == 0 {
		return 0, 0
	}
	return line, lr.curCol + 1
}

// itemStart skips the separators after off to the start of the next value.
func (lr *lineReader) itemStart(off int64) int64 {
	for off >= lr.base && off < lr.n {
		switch lr.win[off-lr.base] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

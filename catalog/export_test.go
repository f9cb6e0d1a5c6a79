package catalog

// DecodeProduct lets the external tests (which may import catalog/gen)
// hold decodeProduct to json.Unmarshal.
var DecodeProduct = decodeProduct

package routes

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"strings"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// The demo's images, outside the API: no key, no sign-in, like the pages.
//
//	GET /demo/images/{file}   a product picture (SKU-n.svg), drawn from its name

// RegisterDemoImages serves the demo catalog's product images at
// gen.DemoImages, so that the demo shows pictures without a network; only
// the demo command binds it, the service itself has no such route.
func RegisterDemoImages(app core.App) {
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Id: "enrichmentDemoImages",
		Func: func(se *core.ServeEvent) error {
			se.Router.GET(gen.DemoImages+"{file}", demoImage)
			return se.Next()
		},
	})
}

// demoImageName is what a demo image may be called: a SKU and the image's
// number, letters, digits and dashes only, so the name drawn in the picture
// needs no escaping.
var demoImageName = regexp.MustCompile(`^[A-Za-z0-9-]{1,120}\.svg$`)

func demoImage(e *core.RequestEvent) error {
	file := e.Request.PathValue("file")
	if !demoImageName.MatchString(file) {
		return e.NotFoundError("", nil)
	}
	svg := demoPicture(strings.TrimSuffix(file, ".svg"))
	h := e.Response.Header()
	// note: the same name always draws the same picture, so a day's caching is safe
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("Content-Security-Policy", "default-src 'none'") // an SVG opened on its own runs nothing
	h.Set("X-Content-Type-Options", "nosniff")
	return e.Blob(http.StatusOK, "image/svg+xml", svg)
}

// demoPicture draws a simple product for name: a parcel, a bottle or a
// ball in a colour of its own, with the name below it; about 600 bytes.
func demoPicture(name string) []byte {
	sum := fnv.New32a()
	sum.Write([]byte(name))
	n := sum.Sum32()
	hue := n % 360
	var shape string
	switch n / 360 % 3 {
	case 0:
		shape = `<rect x="60" y="60" width="120" height="110" rx="10" fill="%[1]s"/><path d="M60 95h120M120 60v35" stroke="%[2]s" stroke-width="6"/>`
	case 1:
		shape = `<rect x="100" y="40" width="40" height="30" rx="6" fill="%[2]s"/><rect x="80" y="66" width="80" height="110" rx="22" fill="%[1]s"/>`
	default:
		shape = `<circle cx="120" cy="112" r="62" fill="%[1]s"/><path d="M66 90q54 30 108 0M66 134q54-30 108 0" stroke="%[2]s" stroke-width="6" fill="none"/>`
	}
	body := fmt.Sprintf(shape, fmt.Sprintf("hsl(%d,55%%,48%%)", hue), fmt.Sprintf("hsl(%d,50%%,30%%)", hue))
	return fmt.Appendf(nil, `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240" viewBox="0 0 240 240">`+
		`<rect width="240" height="240" fill="hsl(%d,45%%,92%%)"/>%s`+
		`<text x="120" y="214" font-family="sans-serif" font-size="16" text-anchor="middle" fill="#334">%s</text></svg>`,
		hue, body, name)
}

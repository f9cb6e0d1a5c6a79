package routes

import (
	"net/http"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var metricsRoutes = []route{
	{Method: http.MethodGet, Path: "/acceptance-rate", Scope: enrichment.ScopeRead, Handler: acceptanceRate},
}

// acceptanceRate reports how the calling API client's own proposals fared:
// never another client's, even of the same organization.
func acceptanceRate(e *core.RequestEvent) error {
	w, err := readWindow(e)
	if err != nil {
		return err
	}
	f, err := readModelFilter(e)
	if err != nil {
		return err
	}
	m, err := store.New(e.App).Metrics().AcceptanceMetrics(requestOrg(e), requestClient(e).ID, w, f)
	if err != nil {
		return internalError(e, "compute acceptance metrics", err)
	}
	return jsonTagged(e, m)
}

// readModelFilter reads the optional model and modelVersion parameters;
// 400 naming the parameter when one is empty or over 100 characters.
func readModelFilter(e *core.RequestEvent) (store.ModelFilter, error) {
	values := e.Request.URL.Query()
	f := store.ModelFilter{Name: values.Get("model"), Version: values.Get("modelVersion")}
	errs := validation.Errors{}
	for name, v := range map[string]string{"model": f.Name, "modelVersion": f.Version} {
		if values.Has(name) && !enrichment.ValidModelText(v) {
			errs[name] = validation.NewError("validation_invalid_model", "must be 1 to 100 characters")
		}
	}
	if len(errs) > 0 {
		return f, e.BadRequestError(firstMessage(errs), errs)
	}
	return f, nil
}

// readWindow reads the optional since and until parameters; 400 naming the
// parameter when one is not a time. A window with since after until is
// allowed and simply empty.
func readWindow(e *core.RequestEvent) (store.Window, error) {
	values := e.Request.URL.Query()
	var w store.Window
	errs := validation.Errors{}
	var err error
	if w.Since, err = queryTime(values, "since"); err != nil {
		errs["since"] = err
	}
	if w.Until, err = queryTime(values, "until"); err != nil {
		errs["until"] = err
	}
	if len(errs) > 0 {
		return w, e.BadRequestError(firstMessage(errs), errs)
	}
	return w, nil
}

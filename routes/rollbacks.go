package routes

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"net/http"
	"slices"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/catalog-enrichment/enrichment/timeparam"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var rollbackRoutes = []route{
	{Method: http.MethodPost, Path: "/review/rollbacks", Reviewer: true, Handler: reviewRollback},
}

// rollbackRequest is a rollback: apiClient and since (until, model and
// modelVersion optional), or revision alone. Ids are numbers or strings of
// digits; times as the metrics take them (timeparam), strings or epoch
// milliseconds; dryRun a boolean or its text ("true", as the query
// parameter of submissions takes it).
type rollbackRequest struct {
	APIClient    jsontext.Value `json:"apiClient"`
	Since        jsontext.Value `json:"since"`
	Until        jsontext.Value `json:"until"`
	Model        jsontext.Value `json:"model"`
	ModelVersion jsontext.Value `json:"modelVersion"`
	Revision     jsontext.Value `json:"revision"`
	DryRun       jsontext.Value `json:"dryRun"`
}

// given reports whether a member was sent with a value other than null.
func given(v jsontext.Value) bool {
	return len(v) > 0 && v.Kind() != 'n'
}

// selection validates the request and reads it; the errors name the keys.
func (r rollbackRequest) selection() (store.RollbackSelection, validation.Errors) {
	var sel store.RollbackSelection
	errs := validation.Errors{}
	if dry, err := jsonFlag(r.DryRun); err != nil {
		errs["dryRun"] = validation.NewError("validation_invalid_type", "Has the wrong type.")
	} else {
		sel.DryRun = dry
	}
	if given(r.Revision) {
		id, err := jsonID(r.Revision)
		if err != nil {
			errs["revision"] = validation.NewError("validation_invalid_id", "must be a revision id")
		}
		sel.Revision = id
		for key, v := range map[string]jsontext.Value{"apiClient": r.APIClient, "since": r.Since, "until": r.Until,
			"model": r.Model, "modelVersion": r.ModelVersion} {
			if given(v) {
				errs[key] = validation.NewError("validation_not_both", "must not be given with revision")
			}
		}
		return sel, errs
	}
	if !given(r.APIClient) {
		errs["apiClient"] = validation.NewError("validation_required", "is required unless revision is given")
	} else if id, err := jsonID(r.APIClient); err != nil {
		errs["apiClient"] = validation.NewError("validation_invalid_id", "must be an API client id")
	} else {
		sel.Client = id
	}
	if !given(r.Since) {
		errs["since"] = validation.NewError("validation_required", "is required with apiClient")
	}
	for key, v := range map[string]jsontext.Value{"since": r.Since, "until": r.Until} {
		if !given(v) {
			continue
		}
		t, err := timeparam.Parse(jsonText(v))
		if err != nil {
			errs[key] = validation.NewError("validation_invalid_time", err.Error())
		}
		if key == "since" {
			sel.Window.Since = t
		} else {
			sel.Window.Until = t
		}
	}
	for key, to := range map[string]*string{"model": &sel.Model.Name, "modelVersion": &sel.Model.Version} {
		v := map[string]jsontext.Value{"model": r.Model, "modelVersion": r.ModelVersion}[key]
		if !given(v) {
			continue
		}
		if v.Kind() != '"' || json.Unmarshal(v, to) != nil || !enrichment.ValidModelText(*to) {
			errs[key] = validation.NewError("validation_invalid_model", "must be 1 to 100 characters")
		}
	}
	return sel, errs
}

// jsonFlag reads a flag sent as a boolean, as its text (parseFlag) or
// null; absent is false.
func jsonFlag(v jsontext.Value) (bool, error) {
	switch v.Kind() {
	case 't', 'f':
		return v.Kind() == 't', nil
	case '"':
		return parseFlag(jsonText(v))
	case 0, 'n':
		return false, nil
	}
	return false, errors.New("must be true or false")
}

// jsonID reads a record id sent as a number or a string.
func jsonID(v jsontext.Value) (int64, error) {
	return enrichment.ParseID(jsonText(v))
}

// jsonText is a JSON string's text, or another value's literal (a number).
func jsonText(v jsontext.Value) string {
	var s string
	if v.Kind() == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// reviewRollback reverts the selected accepted revisions of an
// organization the caller reviews (store.Rollback) and answers how many,
// with the fields and attributes restored, the conflicts left alone and
// the products changed. An API client or revision of another organization
// is not found, as one that does not exist.
func reviewRollback(e *core.RequestEvent) error {
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	var req rollbackRequest
	if err := readJSON(e, &req); err != nil {
		return err
	}
	sel, errs := req.selection()
	if len(errs) > 0 {
		return e.BadRequestError(firstMessage(errs), errs)
	}
	st := store.New(e.App)
	var org enrichment.Org
	what := "API client"
	if sel.Revision != 0 {
		what = "revision"
		org, err = st.Review().RevisionOrganization(sel.Revision)
	} else {
		org, err = st.Accounts().ClientOrganization(sel.Client)
	}
	switch {
	case errors.Is(err, enrichment.ErrNotFound), err == nil && !slices.Contains(orgs, org):
		return e.NotFoundError("No such "+what+".", nil)
	case err != nil:
		return internalError(e, "find what a rollback names", err)
	}
	res, err := st.Review().Rollback(org, sel, hooks.Actor(e.Auth), clock.Now(e.App))
	if err != nil {
		return internalError(e, "roll back revisions", err)
	}
	return e.JSON(http.StatusOK, res)
}

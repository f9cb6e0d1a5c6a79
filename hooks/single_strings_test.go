package hooks_test

import (
	"bytes"
	"mime/multipart"
	"testing"

	"github.com/pocketbase/pocketbase/tests"
)

// multipartBody is a multipart/form-data body of the fields in order (a
// name may repeat), with its Content-Type header.
func multipartBody(t testing.TB, fields ...[2]string) (string, map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), map[string]string{"Content-Type": w.FormDataContentType()}
}

// TestDecisionSingleStrings: a decision's status, reason and audit are one
// plain string in every form the records API takes (JSON, form values, a
// multipart @jsonPayload, the + and - modifiers); anything else, a form
// value and the @jsonPayload both setting one included, is 400
// naming the field, and the revision stays pending.
func TestDecisionSingleStrings(t *testing.T) {
	unchanged := func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }
	jsonPayload, jsonPayloadType := multipartBody(t, [2]string{"@jsonPayload", `{"status":["rejected","accepted"]}`})
	payloadReason, payloadReasonType := multipartBody(t,
		[2]string{"status", "rejected"}, [2]string{"@jsonPayload", `{"reason":["inaccurate"]}`})
	twoReasons, twoReasonsType := multipartBody(t,
		[2]string{"status", "rejected"}, [2]string{"reason", "inaccurate"}, [2]string{"reason", "duplicate"})
	oneEach, oneEachType := multipartBody(t, [2]string{"status", "rejected"}, [2]string{"reason", "duplicate"})
	formAndPayload, formAndPayloadType := multipartBody(t, [2]string{"@jsonPayload", `{"status":"rejected"}`}, [2]string{"status", "accepted"})
	reasonFormAndPayload, reasonFormAndPayloadType := multipartBody(t,
		[2]string{"@jsonPayload", `{"status":"rejected","Reason":"other"}`}, [2]string{"reason", "inaccurate"})
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	refused := func(name, body string, headers map[string]string, field string) call {
		return call{name: name, url: revFull, as: reviewerA, body: body, headers: headers, status: 400,
			content: []string{`"` + field + `":{"code":"validation_invalid_` + field + `"`}, check: unchanged}
	}
	run(t, []call{
		refused("status+ with a string", `{"status+":"accepted"}`, nil, "status"),
		refused("+status with a list", `{"+status":["accepted"]}`, nil, "status"),
		refused("status- with a string", `{"status":"rejected","status-":"pending"}`, nil, "status"),
		refused("status as a one-element list", `{"status":["accepted"]}`, nil, "status"),
		refused("status as null", `{"status":null}`, nil, "status"),
		refused("reason as a one-element list", `{"status":"rejected","reason":["inaccurate"]}`, nil, "reason"),
		refused("reason as a number", `{"status":"rejected","reason":7}`, nil, "reason"),
		refused("reason+ with a string", `{"status":"rejected","reason+":"inaccurate"}`, nil, "reason"),
		refused("audit as a list", `{"status":"accepted","audit":["confirmed"]}`, nil, "audit"),
		refused("status as a list in a multipart @jsonPayload", jsonPayload, jsonPayloadType, "status"),
		refused("reason as a list in a multipart @jsonPayload", payloadReason, payloadReasonType, "reason"),
		refused("reason twice in a multipart form", twoReasons, twoReasonsType, "reason"),
		refused("status in a form value and in the @jsonPayload", formAndPayload, formAndPayloadType, "status"),
		refused("reason in a form value and in the @jsonPayload", reasonFormAndPayload, reasonFormAndPayloadType, "reason"),
		refused("status twice in a URL-encoded form", "status=rejected&status=accepted", form, "status"),
		refused("status+ in a URL-encoded form", "status%2B=accepted", form, "status"),
		{name: "one string each is a decision", url: revFull, as: reviewerA,
			body: `{"status":"rejected","reason":"inaccurate"}`, status: 200, content: []string{`"reason":"inaccurate"`}},
		{name: "one string each in a multipart form", url: revFull, as: reviewerA, body: oneEach,
			headers: oneEachType, status: 200, content: []string{`"status":"rejected"`, `"reason":"duplicate"`}},
	})
}

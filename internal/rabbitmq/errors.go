package rabbitmq

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
)

// StatusCode returns the HTTP status of a broker error, or 0 when err is not
// an answer of the broker (a transport error, a timeout, or nil). rabbit-hole
// reports 401 as a plain error; it is recognised by its text.
func StatusCode(err error) int {
	var er rabbithole.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode
	}
	var erp *rabbithole.ErrorResponse
	if errors.As(err, &erp) && erp != nil {
		return erp.StatusCode
	}
	if err != nil && strings.Contains(err.Error(), "401 Unauthorized") {
		return http.StatusUnauthorized
	}
	return 0
}

// IsNotFound reports whether the broker answered 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// Message renders err for a Ready condition: for a broker refusal the HTTP
// status and the broker's own reason text (for example "inequivalent arg
// 'x-queue-type' for queue ..."), otherwise err's text. It never contains
// credentials: rabbit-hole errors carry none.
func Message(err error) string {
	var er rabbithole.ErrorResponse
	if !errors.As(err, &er) {
		return err.Error()
	}
	text := er.Reason
	if text == "" {
		text = er.Message
	}
	return fmt.Sprintf("broker answered HTTP %d: %s", er.StatusCode, text)
}

// Done closes the body of a successful rabbit-hole response and passes err
// through, so a call reads `err = rabbitmq.Done(c.PutVhost(...))`.
func Done(res *http.Response, err error) error {
	if res != nil && res.Body != nil {
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
	}
	return err
}
